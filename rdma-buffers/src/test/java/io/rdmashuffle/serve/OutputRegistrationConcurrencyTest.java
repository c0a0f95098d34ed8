/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.serve;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.mapoutput.LocateAnswer.Located;
import io.rdmashuffle.mapoutput.LocateAnswer.Status;
import io.rdmashuffle.mapoutput.OutputId;
import io.rdmashuffle.testing.CountingRegistrar;
import io.rdmashuffle.testing.Patterns;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The catalog's registrations under concurrent locates, offers and evictions of the same outputs,
 * with a slow registrar: one registration per output at a time, the registered, counted and live
 * registrations equal after every round, and every answer OK or "busy, ask again" (the outputs are
 * healthy: never FAILED, never an exception out of {@code locate}).
 */
@Timeout(120)
class OutputRegistrationConcurrencyTest {
  private static final String APP = "app-concurrent";
  private static final byte[] SECRET = "concurrent-secret-0123456".getBytes(StandardCharsets.UTF_8);
  private static final long[] LENGTHS = {1000, 0, 3000, 4096};

  /** How long the one-hot-output reproduction runs; the build runs 4 s. */
  private static final long STRESS_MILLIS =
      Long.getLong("rdma.test.registrationStressSeconds", 4) * 1000;

  @TempDir Path dir;
  private final CountingRegistrar registrar = new CountingRegistrar(true);
  private final PublishedOutputs published = new PublishedOutputs();
  private OutputCatalog catalog;

  @AfterEach
  void close() {
    if (catalog != null) {
      catalog.close();
    }
    assertEquals(0, registrar.live(), "every registration released");
  }

  private void catalog(int maxOpen) {
    catalog =
        new OutputCatalog(
            registrar,
            published,
            new OutputCatalog.Limits(maxOpen, 1L << 40, 64 * 1024),
            new ApplicationSecrets(),
            app -> {});
    catalog.admit(APP, SECRET);
  }

  private List<OutputId> commit(int maps) throws IOException {
    List<OutputId> ids = new ArrayList<>();
    long total = 0;
    for (long l : LENGTHS) {
      total += l;
    }
    for (int map = 0; map < maps; map++) {
      Path data = Patterns.file(dir.resolve("shuffle_1_" + map + "_0.data"), total, map);
      MetaFiles.commit(data, 1, map, LENGTHS, null, null, true);
      OutputId id = OutputId.spark(APP, 1, map);
      published.publish(id, data);
      ids.add(id);
    }
    return ids;
  }

  /** What the threads of a round saw. */
  private static final class Seen {
    final Map<Status, AtomicLong> statuses = new EnumMap<>(Status.class);
    final ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();

    Seen() {
      for (Status s : Status.values()) {
        statuses.put(s, new AtomicLong());
      }
    }

    void answer(Located a) {
      statuses.get(a.status()).incrementAndGet();
      if (a.status() != Status.OK && a.status() != Status.BUSY) {
        wrong.add(a.status() + ": " + a.message());
      }
    }

    long count(Status s) {
      return statuses.get(s).get();
    }
  }

  private static void runAll(List<Runnable> work) throws InterruptedException {
    CyclicBarrier start = new CyclicBarrier(work.size());
    List<Thread> threads = new ArrayList<>();
    for (Runnable w : work) {
      Thread t =
          new Thread(
              () -> {
                try {
                  start.await();
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
                w.run();
              });
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) {
      t.join();
    }
  }

  private static void assertNoneWrong(String where, List<String> wrong) {
    assertEquals(
        List.of(),
        wrong.subList(0, Math.min(5, wrong.size())),
        where + ": " + wrong.size() + " answers other than OK or BUSY (the first 5 shown)");
  }

  /** One locate or offer, any throwable recorded as wrong. */
  private void locate(OutputId id, boolean offer, Seen seen) {
    try {
      if (offer) {
        catalog.offer(id);
      } else {
        seen.answer(catalog.locate(id, 0, 4, false));
      }
    } catch (Throwable t) {
      seen.wrong.add("thrown: " + t);
    }
  }

  @Test
  void seededRoundsKeepOneRegistrationPerOutputAndTheCountsEqual() throws Exception {
    catalog(3);
    List<OutputId> ids = commit(6);
    registrar.maxDelayMicros = 300;
    for (int round = 0; round < 30; round++) {
      long seed = 0x5eed_0000L + round;
      Seen seen = new Seen();
      List<Runnable> work = new ArrayList<>();
      for (int t = 0; t < 6; t++) {
        Random random = new Random(seed * 31 + t);
        work.add(
            () -> {
              for (int i = 0; i < 200; i++) {
                // most locates of the two hottest outputs, some of the rest, a few commit offers
                int k = random.nextInt(10);
                OutputId id = ids.get(k < 6 ? k % 2 : 2 + random.nextInt(ids.size() - 2));
                locate(id, k == 9, seen);
              }
            });
      }
      runAll(work);
      String where = "round " + round + " (seed " + seed + ")";
      assertNoneWrong(where, new ArrayList<>(seen.wrong));
      assertTrue(seen.count(Status.OK) > 0, where + ": nothing located");
      int registered = catalog.registeredOutputs();
      assertTrue(registered <= 3, where + ": " + registered + " registered past the bound");
      assertEquals(registered, catalog.metrics().openOutputs(), where + ": registered != counted");
      assertEquals(registered, registrar.live(), where + ": registered != live");
    }
  }

  /**
   * The review's reproduction: eight threads locate one output while another keeps evicting it by
   * locating others; none of the answers may blame the output or throw.
   */
  @Test
  void oneHotOutputLocatedByEightThreadsUnderEvictionIsNeverBlamed() throws Exception {
    catalog(2);
    List<OutputId> ids = commit(5);
    registrar.maxDelayMicros = 50;
    Seen seen = new Seen();
    Seen evictor = new Seen();
    long until = System.nanoTime() + STRESS_MILLIS * 1_000_000;
    List<Runnable> work = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      work.add(
          () -> {
            while (System.nanoTime() < until) {
              locate(ids.get(0), false, seen);
            }
          });
    }
    work.add(
        () -> {
          Random random = new Random(42);
          while (System.nanoTime() < until) {
            locate(ids.get(1 + random.nextInt(ids.size() - 1)), false, evictor);
          }
        });
    runAll(work);
    long locates = 0;
    for (Status s : Status.values()) {
      locates += seen.count(s);
    }
    System.out.printf(
        "one hot output, %d ms: %d locates (%d OK, %d busy), %d evictions, %d registrations%n",
        STRESS_MILLIS,
        locates,
        seen.count(Status.OK),
        seen.count(Status.BUSY),
        catalog.metrics().evictions(),
        catalog.metrics().registrations());
    List<String> wrong = new ArrayList<>(seen.wrong);
    wrong.addAll(evictor.wrong);
    assertNoneWrong("the hot output", wrong);
    assertTrue(seen.count(Status.OK) > 0, "the hot output was never located");
    assertTrue(catalog.metrics().evictions() > 0, "the hot output was never evicted");
    int registered = catalog.registeredOutputs();
    assertEquals(registered, catalog.metrics().openOutputs(), "registered != counted");
    assertEquals(registered, registrar.live(), "registered != live");
  }
}
