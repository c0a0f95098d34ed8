/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.serve;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.mapoutput.LocateAnswer.Located;
import io.rdmashuffle.mapoutput.LocateAnswer.Status;
import io.rdmashuffle.mapoutput.OutputId;
import io.rdmashuffle.mapoutput.ReleaseRequest;
import io.rdmashuffle.testing.CountingRegistrar;
import io.rdmashuffle.testing.Patterns;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A located output stays registered until its reader is done: leases, the fair queue of locates
 * waiting for room instead of evicting leased outputs, lease timeouts, and the bound of one
 * application on a server others use too.
 */
@Timeout(60)
class LeasesTest {
  private static final String APP = "app-leases";
  private static final String OTHER = "app-other";
  private static final byte[] SECRET = "leases-secret-0123456789".getBytes(StandardCharsets.UTF_8);
  private static final long[] LENGTHS = {1000, 3000};
  private static final long SECOND = 1_000_000_000L;

  @TempDir Path dir;
  private final CountingRegistrar registrar = new CountingRegistrar(true);
  private final PublishedOutputs published = new PublishedOutputs();
  private OutputCatalog catalog;

  private OutputCatalog catalog(int maxOpen, int perApplication, long leaseNanos, int maxWaiting) {
    catalog =
        new OutputCatalog(
            registrar,
            published,
            new OutputCatalog.Limits(
                maxOpen,
                perApplication,
                1L << 40,
                Long.MAX_VALUE,
                64 * 1024,
                leaseNanos,
                5 * SECOND,
                maxWaiting),
            new ApplicationSecrets(),
            app -> {});
    catalog.admit(APP, SECRET);
    catalog.admit(OTHER, SECRET);
    return catalog;
  }

  @AfterEach
  void close() {
    if (catalog != null) {
      catalog.close();
    }
    assertEquals(0, registrar.live(), "every registration released");
  }

  private OutputId commit(String app, long map) throws IOException {
    Path data = Patterns.file(dir.resolve(app + "_shuffle_1_" + map + "_0.data"), 4000, (int) map);
    MetaFiles.commit(data, 1, map, LENGTHS, null, null, true);
    OutputId id = OutputId.spark(app, 1, map);
    published.publish(id, data);
    return id;
  }

  private Located locate(OutputId id, long reader, long waitNanos) {
    return catalog.locate(id, 0, 2, false, reader, System.nanoTime() + waitNanos);
  }

  /** Waits until {@code n} locates wait for room (no sleeping on a guess). */
  private void awaitWaiting(int n) throws InterruptedException {
    long deadline = System.nanoTime() + 20 * SECOND;
    while (catalog.waitingLocates() != n) {
      assertTrue(System.nanoTime() - deadline < 0, n + " locates waiting in time");
      TimeUnit.MILLISECONDS.sleep(5);
    }
  }

  private void release(OutputId id, long reader) {
    catalog.release(id.application(), new ReleaseRequest(reader, id.shuffle(), List.of(id.map())));
  }

  @Test
  void aLeasedOutputIsNeverEvictedANewLocateWaitsThenIsBusy() throws Exception {
    catalog(2, 2, 60 * SECOND, 2);
    OutputId a = commit(APP, 1);
    OutputId b = commit(APP, 2);
    OutputId c = commit(APP, 3);
    assertTrue(locate(a, 1, 0).ok());
    assertTrue(locate(b, 1, 0).ok());
    Located e = locate(c, 2, SECOND / 5);
    assertEquals(Status.BUSY, e.status(), e.message());
    assertEquals(0, catalog.metrics().evictions(), "the leased outputs stay registered");
    assertEquals(1, catalog.metrics().waits());
    assertEquals(2, registrar.live());
  }

  @Test
  void aReleasedLeaseMakesRoomForTheLocateThatWaits() throws Exception {
    catalog(2, 2, 60 * SECOND, 2);
    OutputId a = commit(APP, 1);
    OutputId b = commit(APP, 2);
    OutputId c = commit(APP, 3);
    assertTrue(locate(a, 1, 0).ok());
    assertTrue(locate(b, 1, 0).ok());
    CompletableFuture<Located> waiting =
        CompletableFuture.supplyAsync(() -> locate(c, 2, 10 * SECOND));
    TimeUnit.MILLISECONDS.sleep(200);
    assertFalse(waiting.isDone(), "it waits while both outputs are leased");
    release(a, 1);
    Located e = waiting.get(5, TimeUnit.SECONDS);
    assertEquals(Status.OK, e.status(), e.message());
    assertEquals(1, catalog.metrics().evictions(), "a, released, made room");
    assertTrue(locate(b, 1, 0).ok(), "b, still leased, stayed registered");
    assertEquals(1, catalog.metrics().releases());
  }

  @Test
  void locatesWaitingForRoomAreServedInTheOrderTheyCame() throws Exception {
    catalog(2, 2, 60 * SECOND, 4);
    OutputId a = commit(APP, 1);
    OutputId b = commit(APP, 2);
    OutputId c = commit(APP, 3);
    OutputId d = commit(APP, 4);
    assertTrue(locate(a, 1, 0).ok());
    assertTrue(locate(b, 1, 0).ok());
    CompletableFuture<Located> first =
        CompletableFuture.supplyAsync(() -> locate(c, 2, 30 * SECOND));
    awaitWaiting(1);
    CompletableFuture<Located> second =
        CompletableFuture.supplyAsync(() -> locate(d, 3, 30 * SECOND));
    awaitWaiting(2);
    release(a, 1);
    assertTrue(first.get(20, TimeUnit.SECONDS).ok(), "the first to wait gets the first room");
    TimeUnit.MILLISECONDS.sleep(200);
    assertFalse(second.isDone(), "the second waits for the next room");
    release(b, 1);
    assertTrue(second.get(20, TimeUnit.SECONDS).ok());
  }

  @Test
  void beyondTheWaitingBoundALocateIsBusyAtOnce() throws Exception {
    catalog(1, 1, 60 * SECOND, 1);
    OutputId a = commit(APP, 1);
    OutputId b = commit(APP, 2);
    OutputId c = commit(APP, 3);
    assertTrue(locate(a, 1, 0).ok());
    CompletableFuture<Located> waiting =
        CompletableFuture.supplyAsync(() -> locate(b, 2, 3 * SECOND));
    awaitWaiting(1);
    long t0 = System.nanoTime();
    // c is younger than b, which holds the line's one place: busy at once, not after 30 s
    assertEquals(Status.BUSY, locate(c, 3, 30 * SECOND).status());
    assertTrue(System.nanoTime() - t0 < 20 * SECOND, "answered at once, not after waiting");
    assertEquals(Status.BUSY, waiting.get(20, TimeUnit.SECONDS).status());
  }

  /**
   * ServingAtScaleIT (1 GiB NodeManager, 200 readers): 15 of 4,000 tasks gave up after 60 s of
   * "busy" while newcomers were served, because a reader the full line turned away asked again by
   * lottery against every newcomer. The server remembers whom it turned away: that reader, asking
   * again, takes the place of a newcomer in the full line and gets the next room.
   */
  @Test
  void aReaderTurnedAwayBeforeGoesAheadOfANewcomerInAFullLine() throws Exception {
    catalog(1, 1, 60 * SECOND, 1);
    OutputId a = commit(APP, 1);
    OutputId b = commit(APP, 2);
    OutputId c = commit(APP, 3);
    assertTrue(locate(a, 1, 0).ok());
    assertEquals(Status.BUSY, locate(b, 2, SECOND / 5).status(), "reader 2 waited, then busy");
    CompletableFuture<Located> newcomer =
        CompletableFuture.supplyAsync(() -> locate(c, 3, 10 * SECOND));
    TimeUnit.MILLISECONDS.sleep(200);
    assertFalse(newcomer.isDone(), "the newcomer waits in the line of one");
    CompletableFuture<Located> again =
        CompletableFuture.supplyAsync(() -> locate(b, 2, 10 * SECOND));
    Located displaced = newcomer.get(2, TimeUnit.SECONDS);
    assertEquals(Status.BUSY, displaced.status(), "the newcomer gives its place to reader 2");
    assertFalse(again.isDone(), "reader 2 waits for room");
    release(a, 1);
    Located e = again.get(5, TimeUnit.SECONDS);
    assertEquals(Status.OK, e.status(), e.message());
    // reader 3 is remembered now, reader 2 (served) no longer
    assertEquals(Status.BUSY, locate(c, 4, 0).status(), "b is leased to reader 2");
  }

  @Test
  void aLeaseThatTimesOutMakesRoom() throws Exception {
    catalog(1, 1, SECOND / 5, 2);
    OutputId a = commit(APP, 1);
    OutputId b = commit(APP, 2);
    assertTrue(locate(a, 1, 0).ok());
    Located e = locate(b, 2, 5 * SECOND);
    assertEquals(Status.OK, e.status(), "a's reader never released it; its lease timed out");
    assertEquals(1, catalog.metrics().evictions());
  }

  @Test
  void oneApplicationCantPushAnothersOutputsOutOfASharedServer() throws Exception {
    catalog(4, 3, SECOND / 1000, 2);
    OutputId theirs = commit(OTHER, 100);
    assertTrue(locate(theirs, 7, 0).ok());
    for (long m = 1; m <= 12; m++) {
      // the reader is done with each output before it locates the next (released, not left to a
      // lease timeout: on a fast machine twelve locates take less than the millisecond)
      OutputId mine = commit(APP, m);
      assertTrue(locate(mine, 1, 0).ok(), "map " + m);
      release(mine, 1);
    }
    assertTrue(
        catalog.metrics().evictions() >= 9,
        "the busy application evicts its own outputs: " + catalog.metrics().evictions());
    long registrations = catalog.metrics().registrations();
    assertTrue(locate(theirs, 7, 0).ok());
    assertEquals(
        registrations,
        catalog.metrics().registrations(),
        "the other application's output stayed registered");
  }
}
