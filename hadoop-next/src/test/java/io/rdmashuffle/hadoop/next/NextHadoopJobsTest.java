/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.next;

import static io.rdmashuffle.hadoop.jobs.TestJobs.*;
import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.hadoop.jobs.TestJobs;
import io.rdmashuffle.hadoop.testing.Inputs;
import io.rdmashuffle.hadoop.testing.RdmaMiniCluster;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.DefaultCodec;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.util.VersionInfo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The plugin jar, built against Hadoop 3.4, on the next Hadoop release: a full word count with
 * compressed map outputs on the stock shuffle and on ours, outputs equal.
 */
@Timeout(value = 10, unit = java.util.concurrent.TimeUnit.MINUTES)
class NextHadoopJobsTest {
  private static RdmaMiniCluster cluster;

  @BeforeAll
  static void start() {
    cluster = RdmaMiniCluster.start("NextHadoopJobsTest", 2);
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void wordCountOnTheNextHadoopGivesTheStockOutput() throws Exception {
    assertTrue(
        VersionInfo.getVersion().startsWith(System.getProperty("hadoop.next.version", "3.5")),
        "running on Hadoop " + VersionInfo.getVersion());
    Path words = Inputs.words(cluster.fs(), cluster.path("words"), 3, 1_000_000, 3000, 7);
    byte[][] out = new byte[2][];
    for (boolean ours : new boolean[] {false, true}) {
      Job job =
          run(
              TestJobs.wordCount(
                  cluster,
                  "next-wordcount",
                  ours,
                  words,
                  2,
                  c -> {
                    c.setBoolean(MRJobConfig.MAP_OUTPUT_COMPRESS, true);
                    c.setClass(
                        MRJobConfig.MAP_OUTPUT_COMPRESS_CODEC,
                        DefaultCodec.class,
                        CompressionCodec.class);
                  }));
      if (ours) {
        assertAllRead(job.getCounters());
      } else {
        assertStock(job.getCounters());
      }
      out[ours ? 1 : 0] =
          cluster.output(cluster.path("next-wordcount" + (ours ? "-ours" : "-stock")));
    }
    assertTrue(out[0].length > 10_000);
    assertArrayEquals(out[0], out[1]);
  }
}
