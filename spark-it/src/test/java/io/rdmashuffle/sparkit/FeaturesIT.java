/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.sparkit;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.HashPartitioner;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.shuffle.FetchFailedException;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.BlockManagerId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import scala.Tuple2;

/**
 * Spark features that change how map outputs are written and named, in one application, every block
 * through the transport, results checked against what the stock shuffle returns (computed here
 * without Spark). One executor of two cores, so a map that runs again runs where it ran first.
 */
@Timeout(600)
class FeaturesIT {
  private static final int SPILL_EVERY = 16;

  /**
   * Speculation on; the old fetch protocol (a map output's id is its map index: a map run again
   * writes the files of its first run, which Spark keeps); Spark's checksums in Adler32 (chosen:
   * unset, rdma-shuffle has Spark write CRC32); one shuffle of 2000 map outputs; several spills per
   * map task, through the sort writer (map-side combine) and the serialized writer; and maps run
   * again on the same executor after a fetch failure, whose outputs are published anew (their new
   * meta files must survive the withdrawal of the old ones).
   */
  @Test
  void speculationOldFetchProtocolAdler32ManyMapOutputsSpillsAndAMapRunAgain() throws Exception {
    Path work = ItCluster.workDir("features");
    SparkSession s =
        Differential.start(
            ItCluster.localCluster("features", work, 1, 2)
                .set("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
                .set("spark.speculation", "true")
                .set("spark.speculation.interval", "100ms")
                .set("spark.speculation.quantile", "0.5")
                .set("spark.speculation.multiplier", "2")
                .set("spark.shuffle.useOldFetchProtocol", "true")
                .set("spark.shuffle.checksum.algorithm", "ADLER32")
                .set(
                    "spark.shuffle.spill.numElementsForceSpillThreshold",
                    Integer.toString(SPILL_EVERY))
                // 8 reduce partitions are more than this: the serialized writer, not the bypass
                // writer
                .set("spark.shuffle.sort.bypassMergeThreshold", "4")
                .set("spark.shuffle.rdma.read.local", "false"));
    try {
      JavaSparkContext sc = ItCluster.jsc(s);
      TaskOutcomes manyMaps = TaskOutcomes.watch(sc);
      // 2000 map tasks of 50 records: two spills each before the output is merged
      List<String> sums =
          DifferentialIT.canonical(
              DifferentialCases.pairs(sc, 2000 * 50, 500, 2000).reduceByKey(Long::sum, 8));
      manyMaps.settle(sc);
      assertEquals(DifferentialCases.expectedSums(2000 * 50, 500, 2000), sums);
      assertEquals(
          0, manyMaps.fetchFailures.get() + manyMaps.otherFailures.get(), manyMaps.toString());
      assertEquals(2000, manyMaps.mapTasksSucceeded.get(), manyMaps.toString());
      assertTrue(manyMaps.mapBytesSpilled.get() > 0, "no map task spilled: " + manyMaps);

      TaskOutcomes runAgain = TaskOutcomes.watch(sc);
      JavaPairRDD<Integer, Long> partitioned =
          DifferentialCases.pairs(sc, 20 * 400, 1000, 20).partitionBy(new HashPartitioner(8));
      int shuffleId = DifferentialIT.shuffleIdOf(partitioned);
      List<String> result =
          ReadPathIT.sorted(
              partitioned
                  .mapPartitions(
                      (Iterator<Tuple2<Integer, Long>> it) -> sumsFailingOnceForMap0(shuffleId, it))
                  .collect());
      runAgain.settle(sc);
      assertEquals(DifferentialCases.expectedSums(20 * 400, 1000, 20), result);
      assertEquals(1, runAgain.fetchFailures.get(), "only the one reported: " + runAgain);
      assertEquals(0, runAgain.otherFailures.get(), runAgain.toString());
      // Spark drops every map output of the executor a fetch failure names: all 20 ran again
      assertEquals(2 * 20, runAgain.mapTasksSucceeded.get(), "maps ran again: " + runAgain);
      assertTrue(runAgain.mapBytesSpilled.get() > 0, "no map task spilled: " + runAgain);

      Map<String, Map<String, Long>> p = ItCluster.probe(sc);
      assertEquals(2000 + 2 * 20, ItCluster.total(p, "mapOutputsPublished"), p.toString());
      assertEquals(0, ItCluster.total(p, "fallbacks"), p.toString());
      assertEquals(0, ItCluster.total(p, "blocksLocal"), p.toString());
      assertTrue(ItCluster.total(p, "blocksRemote") >= 2000, p.toString());
      for (String key : p.values().iterator().next().keySet()) {
        if (key.startsWith("fetchFailures.")) {
          assertEquals(0, ItCluster.total(p, key), key + ": " + p);
        }
      }
      System.out.println("features: many maps " + manyMaps + "\nrun again " + runAgain + "\n" + p);
    } finally {
      Differential.stop(s);
    }
  }

  /**
   * The sum of each key's values; the first attempt of reduce partition 0 reports a fetch failure
   * of map 0 instead (as a reader that lost it would): Spark runs the maps of this executor again,
   * here.
   */
  private static Iterator<String> sumsFailingOnceForMap0(
      int shuffleId, Iterator<Tuple2<Integer, Long>> it) throws FetchFailedException {
    TaskContext task = TaskContext.get();
    if (task.stageAttemptNumber() == 0 && task.partitionId() == 0) {
      scala.collection.Iterator<
              Tuple2<
                  BlockManagerId,
                  scala.collection.Seq<
                      scala.Tuple3<org.apache.spark.storage.BlockId, Object, Object>>>>
          where = SparkEnv.get().mapOutputTracker().getMapSizesByExecutorId(shuffleId, 0, 1, 0, 8);
      // the old fetch protocol: map 0's id is its index
      throw new FetchFailedException(
          where.next()._1(), shuffleId, 0L, 0, 0, "reported by the test: map 0 lost", null);
    }
    Map<Integer, Long> sums = new TreeMap<>();
    it.forEachRemaining(t -> sums.merge(t._1(), t._2(), Long::sum));
    return sums.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).iterator();
  }
}
