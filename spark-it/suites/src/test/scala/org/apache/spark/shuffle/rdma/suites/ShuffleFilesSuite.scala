/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package org.apache.spark.shuffle.rdma.suites

import java.io.File
import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.spark.{HashPartitioner, LocalSparkContext, ShuffleDependency, SparkConf, SparkContext, SparkFunSuite}
import org.apache.spark.internal.config.SHUFFLE_CHECKSUM_ALGORITHM
import org.apache.spark.rdd.ShuffledRDD
import org.apache.spark.serializer.{JavaSerializer, KryoSerializer, Serializer}
import org.apache.spark.shuffle.sort.SortShuffleManager

/**
 * Ours of SortShuffleSuite's "SortShuffleManager properly cleans up files ..." (excluded: they
 * assert exactly the sort shuffle's three file names): a map output's files are Spark's three plus,
 * with our manager, its meta file `<data file>.rdma-meta` (and Spark's checksum file is CRC32's),
 * and removing the shuffle removes every one of them. Runs on both sides; the stock control expects
 * Spark's three.
 */
class ShuffleFilesSuite extends SparkFunSuite with LocalSparkContext {

  private def allFiles(dir: File): Set[File] =
    Files.walk(dir.toPath).iterator().asScala.map(_.toFile).filter(_.isFile).toSet

  private def cleanedUp(path: String, serializer: SparkConf => Serializer, serialized: Boolean)
    : Unit = test(s"a map output's files, ours included, go with its shuffle ($path path)") {
    val dir = Files.createTempDirectory("shuffle-files").toFile
    try {
      val conf = new SparkConf().set("spark.local.dir", dir.getAbsolutePath)
      sc = new SparkContext("local", "test", conf)
      val rdd = sc.parallelize(1 to 10, 1).map(x => (x, x))
      val shuffled = new ShuffledRDD[Int, Int, Int](rdd, new HashPartitioner(4))
        .setSerializer(serializer(conf))
      val dep = shuffled.dependencies.head.asInstanceOf[ShuffleDependency[_, _, _]]
      assert(SortShuffleManager.canUseSerializedShuffle(dep) === serialized)
      val before = allFiles(dir)
      shuffled.count()
      val created = allFiles(dir) -- before
      // our manager has Spark's writers compute CRC32 unless the application chose an algorithm
      val checksum =
        if (ManagerUnderTest.side == "ours") "CRC32" else conf.get(SHUFFLE_CHECKSUM_ALGORITHM)
      val spark = Set("shuffle_0_0_0.data", "shuffle_0_0_0.index",
        s"shuffle_0_0_0.checksum.$checksum")
      val expected =
        if (ManagerUnderTest.side == "ours") spark + "shuffle_0_0_0.data.rdma-meta" else spark
      assert(created.map(_.getName) === expected)
      sc.env.blockManager.master.removeShuffle(0, blocking = true)
      for (f <- created) {
        assert(!f.exists(), s"shuffle file $f was not removed with its shuffle")
      }
    } finally {
      if (sc != null) {
        sc.stop()
        sc = null
      }
      org.apache.spark.util.Utils.deleteRecursively(dir)
    }
  }

  cleanedUp("serialized", c => new KryoSerializer(c), serialized = true)
  cleanedUp("deserialized", c => new JavaSerializer(c), serialized = false)
}
