/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.serve;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.mapoutput.ChecksumAlgorithm;
import io.rdmashuffle.mapoutput.LocateAnswer.Located;
import io.rdmashuffle.mapoutput.LocateAnswer.Status;
import io.rdmashuffle.mapoutput.OutputId;
import io.rdmashuffle.testing.CountingRegistrar;
import io.rdmashuffle.testing.Patterns;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The serving core's catalog: admission, bounded registration with LRU, statuses. */
@Timeout(60)
class OutputCatalogTest {
  private static final String APP = "app-catalog";
  private static final byte[] SECRET = "catalog-secret-0123456789".getBytes(StandardCharsets.UTF_8);
  private static final long[] LENGTHS = {1000, 0, 3000, 4096};
  private static final long SIZE = 8096;

  @TempDir Path dir;
  private final CountingRegistrar registrar = new CountingRegistrar(true);
  private final PublishedOutputs published = new PublishedOutputs();
  private final ApplicationSecrets secrets = new ApplicationSecrets();
  private final List<String> withdrawn = new ArrayList<>();
  private OutputCatalog catalog;

  private OutputCatalog catalog(int maxOpen, long maxPinned) {
    catalog =
        new OutputCatalog(
            registrar,
            published,
            new OutputCatalog.Limits(maxOpen, maxPinned, 64 * 1024),
            secrets,
            withdrawn::add);
    catalog.admit(APP, SECRET);
    return catalog;
  }

  @AfterEach
  void close() {
    if (catalog != null) {
      catalog.close();
    }
    assertEquals(0, registrar.live(), "every registration released");
  }

  /** A committed map output {@code map} of shuffle 1 with its meta file. */
  private OutputId commit(long map) throws IOException {
    long total = 0;
    for (long l : LENGTHS) {
      total += l;
    }
    Path data = Patterns.file(dir.resolve("shuffle_1_" + map + "_0.data"), total, (int) map);
    MetaFiles.commit(data, 1, map, LENGTHS, null, null, true);
    OutputId id = OutputId.spark(APP, 1, map);
    published.publish(id, data);
    return id;
  }

  @Test
  void locateRegistersOnFirstRequestAndAnswersTheAskedPartitions() throws Exception {
    catalog(8, 1 << 30);
    OutputId id = commit(7);
    Located e = catalog.locate(id, 2, 4, false);
    assertEquals(Status.OK, e.status(), e.message());
    assertEquals(SIZE, e.data().fileLength());
    assertEquals(2, e.partitions().first());
    assertEquals(1000, e.partitions().start(2));
    assertEquals(3000, e.partitions().length(2));
    assertEquals(4000, e.partitions().start(3));
    assertEquals(ChecksumAlgorithm.CRC32C, e.partitions().algorithm());
    assertEquals(1, catalog.registeredOutputs());
    assertEquals(SIZE, catalog.metrics().pinnedBytes());
    catalog.locate(id, 0, 1, false);
    assertEquals(1, catalog.metrics().registrations(), "registered once, served twice");
  }

  @Test
  void localAnswersNameTheFileWithoutRegistering() throws Exception {
    catalog(8, 1 << 30);
    OutputId id = commit(3);
    Located e = catalog.locate(id, 0, 4, true);
    assertEquals(Status.OK, e.status());
    assertNull(e.data());
    assertEquals(published.dataFile(id).toString(), e.localPath());
    assertEquals(0, catalog.registeredOutputs());
  }

  @Test
  void theOpenOutputBoundEvictsTheLeastRecentlyAskedFor() throws Exception {
    catalog(2, 1 << 30);
    OutputId a = commit(1);
    OutputId b = commit(2);
    OutputId c = commit(3);
    assertTrue(catalog.locate(a, 0, 4, false).ok());
    assertTrue(catalog.locate(b, 0, 4, false).ok());
    assertTrue(catalog.locate(a, 0, 4, false).ok()); // a is now the most recent
    assertTrue(catalog.locate(c, 0, 4, false).ok()); // evicts b
    assertEquals(2, catalog.registeredOutputs());
    assertEquals(1, catalog.metrics().evictions());
    assertTrue(catalog.locate(b, 0, 4, false).ok()); // registered again, evicting a
    assertEquals(1, catalog.metrics().reRegistrations());
    assertEquals(2, registrar.live(), "two outputs of one piece each stay registered");
  }

  @Test
  void thePinnedByteBoundEvictsAndAnOutputLargerThanItIsUnavailable() throws Exception {
    catalog(100, SIZE * 2);
    OutputId a = commit(1);
    OutputId b = commit(2);
    OutputId c = commit(3);
    assertTrue(catalog.locate(a, 0, 4, false).ok());
    assertTrue(catalog.locate(b, 0, 4, false).ok());
    assertTrue(catalog.locate(c, 0, 4, false).ok());
    assertEquals(SIZE * 2, catalog.metrics().pinnedBytes());
    catalog.close();
    catalog(100, SIZE - 1);
    Located e = catalog.locate(a, 0, 4, false);
    assertEquals(Status.UNAVAILABLE, e.status());
    assertTrue(e.message().contains("pinned"), e.message());
  }

  /**
   * A wide map output's partition table lives on the serving process's heap as long as it is
   * registered: 4,000 partitions are ~112 KB, so a NodeManager of 192 MB could hold ~1,700 of them,
   * while the open-output bound (from descriptors and mappings) allowed 10,000 and the NodeManager
   * ran out of heap (ServingAtScaleIT, 2026-12-05). The heap those tables take is bounded too.
   */
  @Test
  void theTableByteBoundKeepsWideOutputsOffTheHeapAndATableLargerThanItIsUnavailable()
      throws Exception {
    long[] wide = new long[4000];
    java.util.Arrays.fill(wide, 16);
    List<OutputId> ids = new ArrayList<>();
    for (int m = 0; m < 6; m++) {
      Path data = Patterns.file(dir.resolve("shuffle_1_" + m + "_0.data"), 16 * 4000, m);
      MetaFiles.commit(data, 1, m, wide, null, null, true);
      OutputId id = OutputId.spark(APP, 1, m);
      published.publish(id, data);
      ids.add(id);
    }
    long table = io.rdmashuffle.mapoutput.PartitionTable.heapBytes(4000, true, false);
    assertTrue(table > 4000 * 12, "a table of 4,000 partitions: " + table + " bytes");
    catalog =
        new OutputCatalog(
            registrar,
            published,
            new OutputCatalog.Limits(
                100, 100, 1L << 40, 3 * table, 64 * 1024, 60_000_000_000L, 0, 0),
            secrets,
            withdrawn::add);
    catalog.admit(APP, SECRET);
    for (OutputId id : ids) {
      Located e = catalog.locate(id, 0, 4000, false);
      assertEquals(Status.OK, e.status(), e.message());
      assertTrue(catalog.registeredOutputs() <= 3, "outputs held: " + catalog.registeredOutputs());
    }
    assertEquals(3, catalog.metrics().evictions());
    // leased to a reader, the three held can't go: the fourth is "busy", and the answer names the
    // bound that is full (ServingAtScaleIT's readers were told of 10,000 registrations while the
    // NodeManager held ~600: the table bytes were the limit)
    for (OutputId id : ids.subList(3, 6)) {
      assertEquals(Status.OK, catalog.locate(id, 0, 4000, false, 7, System.nanoTime()).status());
    }
    Located busy = catalog.locate(ids.get(0), 0, 4000, false, 8, System.nanoTime());
    assertEquals(Status.BUSY, busy.status(), busy.message());
    assertTrue(
        busy.message().contains("serve.maxTableBytes=" + 3 * table)
            && busy.message().contains("3 registered"),
        busy.message());
    catalog.close();
    catalog =
        new OutputCatalog(
            registrar,
            published,
            new OutputCatalog.Limits(
                100, 100, 1L << 40, table - 1, 64 * 1024, 60_000_000_000L, 0, 0),
            secrets,
            withdrawn::add);
    catalog.admit(APP, SECRET);
    Located e = catalog.locate(ids.get(0), 0, 4000, false);
    assertEquals(Status.UNAVAILABLE, e.status());
    assertTrue(e.message().contains("serve.maxTableBytes"), e.message());
  }

  @Test
  void offerRegistersAtCommitOnlyWhenNothingMustBeEvicted() throws Exception {
    catalog(1, 1 << 30);
    OutputId a = commit(1);
    OutputId b = commit(2);
    assertTrue(catalog.offer(a));
    assertFalse(catalog.offer(b), "no room without evicting a");
    assertEquals(1, catalog.registeredOutputs());
    assertEquals(0, catalog.metrics().evictions());
  }

  @Test
  void aRefusedRegistrationEvictsOneOutputAndTriesAgainThenIsUnavailable() throws Exception {
    catalog(8, 1 << 30);
    OutputId a = commit(1);
    OutputId b = commit(2);
    assertTrue(catalog.locate(a, 0, 4, false).ok());
    registrar.refusals.set(1);
    assertTrue(catalog.locate(b, 0, 4, false).ok(), "a was evicted to make room");
    assertEquals(1, catalog.registeredOutputs());
    registrar.refusals.set(2);
    Located e = catalog.locate(a, 0, 4, false);
    assertEquals(Status.UNAVAILABLE, e.status());
    assertTrue(e.message().contains("memlock"), e.message());
  }

  @Test
  void statusesSayWhoseProblemItIs() throws Exception {
    catalog(8, 1 << 30);
    assertEquals(
        Status.NOT_FOUND, catalog.locate(OutputId.spark(APP, 1, 99), 0, 1, false).status());
    assertEquals(
        Status.REFUSED, catalog.locate(OutputId.spark("app-other", 1, 99), 0, 1, false).status());
    OutputId id = commit(5);
    assertEquals(Status.REFUSED, catalog.locate(id, 0, 9, false).status(), "beyond its partitions");
    // a data file truncated after commit: the output is damaged, the map's fault
    Path data = published.dataFile(id);
    try (var ch =
        java.nio.channels.FileChannel.open(data, java.nio.file.StandardOpenOption.WRITE)) {
      ch.truncate(100);
    }
    Located e = catalog.locate(id, 0, 4, false);
    assertEquals(Status.FAILED, e.status());
    assertTrue(e.message().contains("data file"), e.message());
  }

  @Test
  void withdrawingAnApplicationForgetsItsSecretAndRegistrations() throws Exception {
    catalog(8, 1 << 30);
    OutputId id = commit(4);
    assertTrue(catalog.locate(id, 0, 4, false).ok());
    assertNotNull(secrets.secretOf(APP));
    catalog.withdraw(APP);
    assertNull(secrets.secretOf(APP));
    assertEquals(0, catalog.registeredOutputs());
    assertEquals(0, registrar.live());
    assertEquals(List.of(APP), withdrawn);
    assertEquals(Status.REFUSED, catalog.locate(id, 0, 4, false).status());
  }

  @Test
  void aForgottenShuffleIsDeregisteredAndStaysSo() throws Exception {
    catalog(8, 1 << 30);
    OutputId id = commit(6);
    assertTrue(catalog.locate(id, 0, 4, false).ok());
    catalog.forgetShuffle(APP, "1");
    assertEquals(0, catalog.registeredOutputs());
    Located e = catalog.locate(id, 0, 4, false);
    assertEquals(Status.REFUSED, e.status(), "a late request does not register it again");
    assertTrue(Files.exists(published.dataFile(id)));
  }

  /**
   * Spark runs a removed shuffle again under its id (ContextCleanerSuite's "cleanup shuffle":
   * cleaned up explicitly, then collected again): the new run's outputs are served, while the
   * removed run's stay gone. Spark 4.2's suite failed the stage four times on "no longer served
   * here (or the shuffle was removed)".
   */
  @Test
  void aShuffleRunAgainAfterItsRemovalIsServedAgain() throws Exception {
    catalog(8, 1 << 30);
    OutputId old = commit(6);
    assertTrue(catalog.locate(old, 0, 4, false).ok());
    published.removeShuffle(APP, "1");
    catalog.forgetShuffle(APP, "1");
    OutputId again = commit(9);
    catalog.committed(again);
    Located e = catalog.locate(again, 0, 4, false);
    assertEquals(Status.OK, e.status(), e.message());
    assertEquals(1, catalog.registeredOutputs());
    assertEquals(Status.NOT_FOUND, catalog.locate(old, 0, 4, false).status());
    assertEquals(1, catalog.registeredOutputs());
  }
}
