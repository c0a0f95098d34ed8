/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.testing;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.rdmashuffle.memory.Access;
import io.rdmashuffle.memory.DirectMemory;
import io.rdmashuffle.memory.MemoryPiece;
import io.rdmashuffle.memory.RegisteredRegion;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * The leak check applied to every test: runs small test classes (nested here, run only from these
 * tests) through the JUnit launcher with extension autodetection on, as the build runs them, and
 * reads their results.
 */
@Timeout(120)
class LeakCheckExtensionTest {
  static final CountingRegistrar REGISTRAR = new CountingRegistrar();
  static final List<RegisteredRegion> LEFT = new ArrayList<>();
  static volatile boolean running;

  static boolean running() {
    return running;
  }

  static RegisteredRegion register(int bytes) throws Exception {
    return REGISTRAR.register(
        MemoryPiece.of(DirectMemory.allocate(bytes)), Access.LOCAL_WRITE, "", () -> {});
  }

  @EnabledIf("io.rdmashuffle.testing.LeakCheckExtensionTest#running")
  static class LeavesARegionRegistered {
    @Test
    void leaves() throws Exception {
      LEFT.add(register(4096));
    }

    @Test
    void closes() throws Exception {
      register(8192).close();
    }
  }

  @EnabledIf("io.rdmashuffle.testing.LeakCheckExtensionTest#running")
  static class KeepsAClassFixtureAndFreesLate {
    static RegisteredRegion fixture;

    @BeforeAll
    static void register() throws Exception {
      fixture = LeakCheckExtensionTest.register(100);
    }

    @AfterAll
    static void close() {
      fixture.close();
    }

    @Test
    void usesTheFixture() {
      assertTrue(fixture.tryRetain());
      fixture.release();
    }

    @Test
    void handsARegionToAThreadThatClosesItAfterTheTest() throws Exception {
      RegisteredRegion r = LeakCheckExtensionTest.register(300);
      Thread t =
          new Thread(
              () -> {
                try {
                  Thread.sleep(300);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
                r.close();
              });
      t.start();
    }
  }

  private static TestExecutionSummary run(Class<?> tests) {
    LauncherDiscoveryRequest request =
        LauncherDiscoveryRequestBuilder.request()
            .selectors(selectClass(tests))
            .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "true")
            .configurationParameter(
                "junit.jupiter.extensions.autodetection.include", "io.rdmashuffle.*")
            .configurationParameter(LeakCheckExtension.SETTLE_PARAMETER, "2000")
            .build();
    SummaryGeneratingListener listener = new SummaryGeneratingListener();
    running = true;
    try {
      LauncherFactory.create().execute(request, listener);
    } finally {
      running = false;
    }
    return listener.getSummary();
  }

  @Test
  void aTestThatLeavesARegionRegisteredFailsAndSaysWhereItWasRegistered() {
    try {
      TestExecutionSummary s = run(LeavesARegionRegistered.class);
      assertEquals(2, s.getTestsStartedCount());
      assertEquals(1, s.getTestsFailedCount(), "only the test that leaves its region fails");
      Throwable e = s.getFailures().get(0).getException();
      assertTrue(
          e.getMessage()
              .contains(
                  "leaves() leaked 1 resource(s):\n  registered region of 4096 bytes (LOCAL_WRITE) is not"
                      + " yet deregistered"),
          e.getMessage());
      boolean here = false;
      for (StackTraceElement f : e.getSuppressed()[0].getStackTrace()) {
        here |= f.getMethodName().equals("leaves");
      }
      assertTrue(here, "the failure carries where the region was registered");
    } finally {
      LEFT.forEach(RegisteredRegion::close);
      LEFT.clear();
    }
    assertEquals(0, REGISTRAR.accounting().registeredBytes());
  }

  @Test
  void classFixturesAndResourcesFreedSoonAfterTheTestPass() {
    TestExecutionSummary s = run(KeepsAClassFixtureAndFreesLate.class);
    assertEquals(2, s.getTestsSucceededCount(), () -> s.getFailures().toString());
    assertEquals(0, REGISTRAR.accounting().registeredBytes());
  }
}
