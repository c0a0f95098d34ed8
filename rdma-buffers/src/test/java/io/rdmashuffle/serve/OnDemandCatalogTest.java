/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmashuffle.mapoutput.OutputId;
import io.rdmashuffle.testing.CountingRegistrar;
import io.rdmashuffle.testing.Patterns;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The serving side with a registrar that pins nothing (verbs on demand, {@code auto} where the
 * device's on-demand READs work): the pinned bound stops limiting what is served, so thousands of
 * outputs far beyond {@code serve.maxPinnedBytes} are each registered once and never evicted; a
 * registrar that pins thrashes under the same bound. (On real verbs: {@code VerbsCatalogTest} in
 * the Soft-RoCE guest, with rdma_rxe built with its fix.)
 */
@Timeout(120)
class OnDemandCatalogTest {
  private static final String APP = "app-on-demand";
  private static final byte[] SECRET =
      "on-demand-secret-012345678".getBytes(StandardCharsets.UTF_8);
  private static final long[] LENGTHS = {1000, 3000};
  private static final long SIZE = 4000;
  private static final int OUTPUTS = 2000;

  /** Ten outputs' bytes: the outputs are 200 times the bound. */
  private static final long MAX_PINNED = 10 * SIZE;

  @TempDir Path dir;

  private long[] serveTwice(CountingRegistrar registrar) throws IOException {
    PublishedOutputs published = new PublishedOutputs();
    ApplicationSecrets secrets = new ApplicationSecrets();
    List<OutputId> ids = new ArrayList<>();
    for (int m = 0; m < OUTPUTS; m++) {
      Path data = dir.resolve("shuffle_1_" + m + "_0.data");
      if (!data.toFile().exists()) {
        Patterns.file(data, SIZE, m);
        MetaFiles.commit(data, 1, m, LENGTHS, null, null, true);
      }
      OutputId id = OutputId.spark(APP, 1, m);
      published.publish(id, data);
      ids.add(id);
    }
    try (OutputCatalog catalog =
        new OutputCatalog(
            registrar,
            published,
            new OutputCatalog.Limits(4096, MAX_PINNED, 64 * 1024),
            secrets,
            a -> {})) {
      catalog.admit(APP, SECRET);
      for (int round = 0; round < 2; round++) {
        for (OutputId id : ids) {
          assertTrue(catalog.locate(id, 0, 2, false).ok(), id + " round " + round);
        }
      }
      ServingMetrics m = catalog.metrics();
      return new long[] {m.registrations(), m.evictions(), m.reRegistrations(), m.pinnedBytes()};
    }
  }

  @Test
  void onDemandThousandsOfOutputsBeyondThePinnedBoundAreEachRegisteredOnce() throws Exception {
    CountingRegistrar onDemand = new CountingRegistrar(false);

    long[] m = serveTwice(onDemand);

    assertEquals(OUTPUTS, m[0], "registrations");
    assertEquals(0, m[1], "evictions");
    assertEquals(0, m[2], "re-registrations");
    assertEquals(0, m[3], "pinned bytes");
    assertEquals(0, onDemand.live(), "every registration released at close");
  }

  @Test
  void pinnedTheSameOutputsThrashUnderTheBound() throws Exception {
    long[] m = serveTwice(new CountingRegistrar(true));

    assertTrue(m[1] >= OUTPUTS, "evictions: " + m[1]);
    assertTrue(m[2] >= OUTPUTS - 10, "re-registrations: " + m[2]);
    assertTrue(m[3] <= MAX_PINNED, "pinned bytes within the bound: " + m[3]);
  }
}
