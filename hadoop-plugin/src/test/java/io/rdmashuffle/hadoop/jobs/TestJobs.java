/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.jobs;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.hadoop.reduce.RdmaShuffleCounter;
import io.rdmashuffle.hadoop.testing.RdmaMiniCluster;
import java.io.IOException;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.examples.WordCount;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobCounter;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;

/** The jobs the differential tests run, stock shuffle and ours, on a {@link RdmaMiniCluster}. */
public final class TestJobs {
  private TestJobs() {}

  /** Emits only the word "qq": most partitions of every map output stay empty. */
  public static final class OneWordMapper extends Mapper<Object, Text, Text, IntWritable> {
    private static final IntWritable ONE = new IntWritable(1);
    private final Text word = new Text("qq");

    @Override
    protected void map(Object key, Text value, Context context)
        throws IOException, InterruptedException {
      for (String w : value.toString().split(" ")) {
        if (w.equals("qq")) {
          context.write(word, ONE);
        }
      }
    }
  }

  /** Word count (hadoop-mapreduce-examples' mapper and combiner/reducer). */
  public static Job wordCount(
      RdmaMiniCluster cluster,
      String name,
      boolean ours,
      Path in,
      int reducers,
      Consumer<Configuration> tweak)
      throws Exception {
    Configuration c = cluster.jobConf(ours);
    c.setBoolean(MRJobConfig.MAP_SPECULATIVE, false);
    c.setBoolean(MRJobConfig.REDUCE_SPECULATIVE, false);
    tweak.accept(c);
    Job job = Job.getInstance(c, name + (ours ? "-ours" : "-stock"));
    job.setMapperClass(WordCount.TokenizerMapper.class);
    job.setCombinerClass(WordCount.IntSumReducer.class);
    job.setReducerClass(WordCount.IntSumReducer.class);
    job.setOutputKeyClass(Text.class);
    job.setOutputValueClass(IntWritable.class);
    job.setNumReduceTasks(reducers);
    FileInputFormat.addInputPath(job, in);
    Path out = output(cluster, name, ours);
    FileOutputFormat.setOutputPath(job, out);
    return job;
  }

  public static Path output(RdmaMiniCluster cluster, String name, boolean ours) throws IOException {
    Path out = cluster.path(name + (ours ? "-ours" : "-stock"));
    cluster.fs().delete(out, true);
    return out;
  }

  public static Job run(Job job) throws Exception {
    assertTrue(
        job.waitForCompletion(false),
        job.getJobName() + " failed: " + job.getStatus().getFailureInfo());
    return job;
  }

  /** Every map output was READ, none fell back, and the bytes are what Hadoop counted. */
  public static void assertAllRead(Counters c) {
    long maps = c.findCounter(JobCounter.TOTAL_LAUNCHED_MAPS).getValue();
    long reduces = c.findCounter(JobCounter.TOTAL_LAUNCHED_REDUCES).getValue();
    assertEquals(0, c.findCounter(RdmaShuffleCounter.FALLBACK_NODES).getValue(), "fallbacks");
    assertEquals(0, c.findCounter(RdmaShuffleCounter.FALLBACK_FETCHES).getValue(), "fallbacks");
    assertEquals(0, c.findCounter(RdmaShuffleCounter.STOCK_SHUFFLE_TASKS).getValue());
    assertEquals(
        maps * reduces,
        c.findCounter(RdmaShuffleCounter.MAPS_READ).getValue(),
        "one READ copy per map and reduce");
    assertEquals(
        c.findCounter(TaskCounter.REDUCE_SHUFFLE_BYTES).getValue(),
        c.findCounter(RdmaShuffleCounter.BYTES_READ).getValue());
    assertTrue(c.findCounter(RdmaShuffleCounter.MAP_OUTPUTS_REQUESTS).getValue() >= reduces);
  }

  /** The stock run touched none of our counters. */
  public static void assertStock(Counters c) {
    assertEquals(0, c.findCounter(RdmaShuffleCounter.MAPS_READ).getValue());
    assertEquals(0, c.findCounter(RdmaShuffleCounter.MAP_OUTPUTS_REQUESTS).getValue());
  }
}
