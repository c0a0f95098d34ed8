/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package org.apache.spark.shuffle.rdma;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.mapoutput.OwnerMarker;
import io.rdmashuffle.transport.PeerAddress;
import java.util.Set;
import java.util.TreeSet;
import org.apache.spark.MapOutputTracker$;
import org.apache.spark.MapOutputTrackerMaster;
import org.apache.spark.SparkConf;
import org.apache.spark.scheduler.MapStatus;
import org.apache.spark.scheduler.MapStatus$;
import org.apache.spark.storage.BlockManagerId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import scala.Option;

/**
 * What our marker in a map status's location does to Spark's own bookkeeping: reduce tasks keep the
 * stock shuffle's preferred locations (Spark sums sizes per location, and {@code
 * BlockManagerId.equals} includes the topology info), and serialized map statuses stay close to
 * stock's size.
 */
@Timeout(300)
class MapStatusLocationsTest {
  private static final int REDUCES = 4;

  private static BlockManagerId stock(String exec, String host) {
    return BlockManagerId.apply(exec, host, 7000, Option.empty());
  }

  private static BlockManagerId ours(String exec, String host, int port) {
    String marker = new OwnerMarker(TransportKind.TCP, new PeerAddress(host, port)).toText();
    return BlockManagerId.apply(exec, host, 7000, Option.apply(marker));
  }

  /** Sizes that make {@code heavy} hold most of every reduce partition's bytes. */
  private static long[] sizes(boolean heavy) {
    long[] s = new long[REDUCES];
    java.util.Arrays.fill(s, heavy ? 1_000_000 : 10_000);
    return s;
  }

  private static Set<String> preferred(MapOutputTrackerMaster t, int reducer) {
    Set<String> out = new TreeSet<>();
    Option<BlockManagerId[]> locs = t.getLocationsWithLargestOutputs(0, reducer, REDUCES, 0.2);
    if (locs.isDefined()) {
      for (BlockManagerId id : locs.get()) {
        out.add(id.executorId() + "@" + id.host());
      }
    }
    return out;
  }

  private static final int HEAVY = 10;
  private static final int MAPS = HEAVY + 2;

  /**
   * Registers 12 maps: 10 heavy ones on executor 1 (hostA), each a tenth of the bytes, so no single
   * map output holds the 20 % that makes a location preferred; 2 light ones on executor 2 (hostB).
   */
  private static MapOutputTrackerMaster tracker(
      java.util.function.IntFunction<BlockManagerId> loc) {
    MapOutputTrackerMaster t = new MapOutputTrackerMaster(new SparkConf(false), null, true);
    t.registerShuffle(0, MAPS, REDUCES);
    for (int m = 0; m < MAPS; m++) {
      t.registerMapOutput(0, m, MapStatus$.MODULE$.apply(loc.apply(m), sizes(m < HEAVY), m, 0L));
    }
    return t;
  }

  @Test
  void reduceTasksPreferTheSameExecutorsAsWithTheStockShuffle() {
    MapOutputTrackerMaster stock =
        tracker(m -> m < HEAVY ? stock("1", "hostA") : stock("2", "hostB"));
    MapOutputTrackerMaster ours =
        tracker(m -> m < HEAVY ? ours("1", "hostA", 41000) : ours("2", "hostB", 42000));
    for (int r = 0; r < REDUCES; r++) {
      assertEquals(Set.of("1@hostA"), preferred(stock, r));
      assertEquals(preferred(stock, r), preferred(ours, r), "reducer " + r);
    }
    // what a per-map descriptor in the same field did: every map output a location of its own,
    // none large enough to be preferred
    MapOutputTrackerMaster perMap =
        tracker(
            m ->
                BlockManagerId.apply(
                    m < HEAVY ? "1" : "2",
                    m < HEAVY ? "hostA" : "hostB",
                    7000,
                    Option.apply("descriptor-of-map-" + m)));
    assertEquals(Set.of(), preferred(perMap, 0));
  }

  @Test
  void serializedStatusesOfAHundredThousandMapsStayWithinOneAndAHalfTimesStocks() {
    int maps = 100_000;
    int executors = 50;
    MapStatus[] stock = new MapStatus[maps];
    MapStatus[] ours = new MapStatus[maps];
    java.util.Random r = new java.util.Random(5);
    for (int m = 0; m < maps; m++) {
      int e = m % executors;
      long[] s = new long[20];
      for (int p = 0; p < s.length; p++) {
        s[p] = r.nextInt(1 << 20);
      }
      stock[m] = MapStatus$.MODULE$.apply(stock("exec-" + e, "node" + e), s, m, 0L);
      ours[m] = MapStatus$.MODULE$.apply(ours("exec-" + e, "node" + e, 40000 + e), s, m, 0L);
    }
    SparkConf conf = new SparkConf(false);
    long stockBytes =
        MapOutputTracker$.MODULE$
            .serializeOutputStatuses(stock, null, true, Integer.MAX_VALUE, conf)
            ._1()
            .length;
    long ourBytes =
        MapOutputTracker$.MODULE$
            .serializeOutputStatuses(ours, null, true, Integer.MAX_VALUE, conf)
            ._1()
            .length;
    double ratio = (double) ourBytes / stockBytes;
    System.out.printf(
        "map statuses of %d maps: stock %d bytes, ours %d bytes, ratio %.3f%n",
        maps, stockBytes, ourBytes, ratio);
    assertTrue(ratio <= 1.5, "ours/stock = " + ratio);
  }
}
