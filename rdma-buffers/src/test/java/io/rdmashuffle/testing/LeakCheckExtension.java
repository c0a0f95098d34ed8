/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.testing;

import io.rdmashuffle.memory.LeakDetector;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails any test that leaves registered memory, lent buffers, registered files or open buffer pools
 * behind, or during which the {@link LeakDetector} found a resource dropped without its release.
 * What was live when the test started (class-level fixtures) does not count, and work that ends on
 * other threads after the test (a READ still being served) gets a few seconds to give back what it
 * holds.
 *
 * <p>Registered for every test of every module that has the rdma-buffers test-jar on its class
 * path, by JUnit's extension autodetection ({@code META-INF/services} in this jar; the parent pom's
 * Surefire configuration switches autodetection on). It switches leak detection on for the test
 * JVM. Tests must not run in parallel within one JVM: the check is process-wide.
 */
public final class LeakCheckExtension
    implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback {
  /** How long the resources of a finished test may take to be given back by other threads. */
  private static final long SETTLE_MILLIS = 10_000;

  /** JUnit configuration parameter: a shorter wait, for tests of this extension. */
  static final String SETTLE_PARAMETER = "rdma.leakCheck.settleMillis";

  private static final ExtensionContext.Namespace NS =
      ExtensionContext.Namespace.create(LeakCheckExtension.class);

  @Override
  public void beforeAll(ExtensionContext context) {
    LeakDetector.enable();
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    LeakDetector.enable();
    context.getStore(NS).put("mark", LeakDetector.mark());
  }

  @Override
  public void afterEach(ExtensionContext context) throws InterruptedException {
    long mark = context.getStore(NS).get("mark", Long.class);
    long settle =
        context
            .getConfigurationParameter(SETTLE_PARAMETER)
            .map(Long::parseLong)
            .orElse(SETTLE_MILLIS);
    settle(mark, settle);
    List<LeakDetector.Leak> found = new ArrayList<>(LeakDetector.drainReported());
    found.addAll(LeakDetector.liveSince(mark));
    if (!found.isEmpty()) {
      // reported here, not again when the collector finds them (or a chunk they hold) later
      LeakDetector.dismissSince(mark);
      throw failure(context, found);
    }
  }

  /** Waits up to {@code millis} for resources still live to be given back. */
  private static void settle(long mark, long millis) throws InterruptedException {
    long deadline = System.currentTimeMillis() + millis;
    while (!LeakDetector.liveSince(mark).isEmpty() && System.currentTimeMillis() < deadline) {
      Thread.sleep(20);
    }
  }

  private static AssertionError failure(ExtensionContext context, List<LeakDetector.Leak> leaks) {
    StringBuilder m = new StringBuilder();
    m.append(context.getDisplayName())
        .append(" leaked ")
        .append(leaks.size())
        .append(" resource(s):");
    for (LeakDetector.Leak l : leaks) {
      m.append("\n  ").append(l);
    }
    AssertionError e = new AssertionError(m.toString());
    for (LeakDetector.Leak l : leaks) {
      e.addSuppressed(l.createdAt());
    }
    return e;
  }
}
