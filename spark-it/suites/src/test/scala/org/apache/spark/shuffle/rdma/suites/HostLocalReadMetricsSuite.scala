/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package org.apache.spark.shuffle.rdma.suites

import org.apache.spark.{LocalSparkContext, MapOutputTrackerMaster, SparkConf, SparkContext, SparkFunSuite, TaskContext, TestUtils}
import org.apache.spark.internal.config.SHUFFLE_HOST_LOCAL_DISK_READING_ENABLED

/**
 * Ours of HostLocalShuffleReadingSuite's SPARK-32077 test (excluded: besides the reading it
 * asserts the BlockManager's cache of other executors' local dirs, which Spark's own fetcher fills
 * and ours, told each file by its owner, never uses): with two executors on one host, every block
 * of the other executor is read from its file, and Spark's task metrics show it the way Spark's
 * host-local path does, as local blocks and bytes with no remote fetch at all. Both sides.
 */
class HostLocalReadMetricsSuite extends SparkFunSuite with LocalSparkContext {

  test("blocks of another executor on this host are read from its files: local, not remote") {
    // both shuffles' host-local reading on, whatever the run's default for ours
    val conf = new SparkConf().set(SHUFFLE_HOST_LOCAL_DISK_READING_ENABLED, true)
      .set("spark.shuffle.rdma.read.local", "true")
    sc = new SparkContext("local-cluster[2,1,1024]", "host-local-read-metrics", conf)
    TestUtils.waitUntilExecutorsUp(sc, 2, 60000)
    val rdd = sc.parallelize(0 until 1000, 10).map(i => (i, 1)).reduceByKey(_ + _)
    assert(rdd.count() === 1000)
    // the map outputs lie on both executors: each reduce task reads the other one's too
    val tracker = sc.env.mapOutputTracker.asInstanceOf[MapOutputTrackerMaster]
    val shuffleId = rdd.dependencies.head.asInstanceOf[org.apache.spark.ShuffleDependency[_, _, _]]
      .shuffleId
    val owners = tracker.shuffleStatuses(shuffleId).mapStatuses.map(_.location.executorId).toSet
    assert(owners.size === 2, s"map outputs on $owners")

    val read = rdd.mapPartitions { records =>
      records.foreach(_ => ()) // read every block of the partition
      val m = TaskContext.get().taskMetrics().shuffleReadMetrics
      Iterator((m.localBlocksFetched, m.localBytesRead, m.remoteBlocksFetched, m.remoteBytesRead))
    }.collect()
    val (localBlocks, localBytes, remoteBlocks, remoteBytes) = (read.map(_._1).sum,
      read.map(_._2).sum, read.map(_._3).sum, read.map(_._4).sum)
    assert(localBlocks > 0 && localBytes > 0, s"local: $localBlocks blocks, $localBytes bytes")
    assert(remoteBlocks === 0 && remoteBytes === 0,
      s"remote: $remoteBlocks blocks, $remoteBytes bytes")
  }
}
