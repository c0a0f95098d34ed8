/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.hadoop;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.StringTokenizer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;

/**
 * The MapReduce jobs the harness runs, each deterministic so a run on the stock shuffle and a run
 * on rdma-shuffle must write the same bytes: a word count (with a combiner), a sort of text lines
 * (each reducer's output sorted), and a reduce-side join of two inputs on their first field.
 */
final class Jobs {
  private Jobs() {}

  static Job create(JobArgs a, Configuration conf) throws IOException {
    Job job = Job.getInstance(conf, a.name());
    job.setJarByClass(Jobs.class);
    job.setNumReduceTasks(a.reducers());
    switch (a.job()) {
      case "wordcount" -> {
        job.setMapperClass(WordMapper.class);
        job.setCombinerClass(SumReducer.class);
        job.setReducerClass(SumReducer.class);
        job.setOutputKeyClass(Text.class);
        job.setOutputValueClass(IntWritable.class);
      }
      case "sort" -> {
        job.setMapperClass(LineMapper.class);
        job.setReducerClass(LineReducer.class);
        job.setOutputKeyClass(Text.class);
        job.setOutputValueClass(NullWritable.class);
      }
      case "join" -> {
        if (a.inputs().size() != 2) {
          throw new IllegalArgumentException("join needs two inputs, got " + a.inputs());
        }
        Path left = new Path(a.inputs().get(0));
        job.getConfiguration()
            .set(JoinMapper.LEFT, left.getFileSystem(conf).makeQualified(left).toUri().getPath());
        job.setMapperClass(JoinMapper.class);
        job.setReducerClass(JoinReducer.class);
        job.setMapOutputKeyClass(Text.class);
        job.setMapOutputValueClass(Text.class);
        job.setOutputKeyClass(Text.class);
        job.setOutputValueClass(Text.class);
      }
      case "hold" -> {
        // a word count whose reducers wait, after their shuffle, until released (multi-user
        // tests: the job's map outputs stay served meanwhile)
        job.setMapperClass(WordMapper.class);
        job.setCombinerClass(SumReducer.class);
        job.setReducerClass(Tenants.HoldingReducer.class);
        job.setOutputKeyClass(Text.class);
        job.setOutputValueClass(IntWritable.class);
      }
      case "trespass" -> {
        // another user's reducer asking for a held job's map outputs (multi-user tests)
        job.setMapperClass(WordMapper.class);
        job.setReducerClass(Tenants.TrespassingReducer.class);
        job.setMapOutputKeyClass(Text.class);
        job.setMapOutputValueClass(IntWritable.class);
        job.setOutputKeyClass(Text.class);
        job.setOutputValueClass(NullWritable.class);
      }
      default ->
          throw new IllegalArgumentException(
              "job=" + a.job() + ": must be wordcount, sort, join, hold or trespass");
    }
    for (String in : a.inputs()) {
      FileInputFormat.addInputPath(job, new Path(in));
    }
    FileOutputFormat.setOutputPath(job, new Path(a.output()));
    return job;
  }

  /** Word count: every whitespace-separated word, once. */
  public static final class WordMapper extends Mapper<LongWritable, Text, Text, IntWritable> {
    private static final IntWritable ONE = new IntWritable(1);
    private final Text word = new Text();

    @Override
    protected void map(LongWritable key, Text value, Context context)
        throws IOException, InterruptedException {
      StringTokenizer t = new StringTokenizer(value.toString());
      while (t.hasMoreTokens()) {
        word.set(t.nextToken());
        context.write(word, ONE);
      }
    }
  }

  /** Word count's combiner and reducer. */
  public static final class SumReducer extends Reducer<Text, IntWritable, Text, IntWritable> {
    private final IntWritable sum = new IntWritable();

    @Override
    protected void reduce(Text key, Iterable<IntWritable> values, Context context)
        throws IOException, InterruptedException {
      int s = 0;
      for (IntWritable v : values) {
        s += v.get();
      }
      sum.set(s);
      context.write(key, sum);
    }
  }

  /** Sort: the line is the key. */
  public static final class LineMapper extends Mapper<LongWritable, Text, Text, NullWritable> {
    @Override
    protected void map(LongWritable key, Text value, Context context)
        throws IOException, InterruptedException {
      context.write(value, NullWritable.get());
    }
  }

  /** Sort: each line as often as it came. */
  public static final class LineReducer extends Reducer<Text, NullWritable, Text, NullWritable> {
    @Override
    protected void reduce(Text key, Iterable<NullWritable> values, Context context)
        throws IOException, InterruptedException {
      for (NullWritable v : values) {
        context.write(key, v);
      }
    }
  }

  /**
   * Join: {@code key,rest} lines; the value is tagged L or R by the input it came from (the first
   * input named is the left one).
   */
  public static final class JoinMapper extends Mapper<LongWritable, Text, Text, Text> {
    static final String LEFT = "rdma.cluster.join.left";
    private String tag;
    private final Text k = new Text();
    private final Text v = new Text();

    @Override
    protected void setup(Context context) {
      String file = ((FileSplit) context.getInputSplit()).getPath().toUri().getPath();
      String left = context.getConfiguration().get(LEFT);
      tag = file.equals(left) || file.startsWith(left + "/") ? "L" : "R";
    }

    @Override
    protected void map(LongWritable key, Text value, Context context)
        throws IOException, InterruptedException {
      String line = value.toString();
      int comma = line.indexOf(',');
      if (comma < 0) {
        return;
      }
      k.set(line.substring(0, comma));
      v.set(tag + line.substring(comma + 1));
      context.write(k, v);
    }
  }

  /** Join: every left value with every right value of a key, in sorted order. */
  public static final class JoinReducer extends Reducer<Text, Text, Text, Text> {
    private final Text out = new Text();

    @Override
    protected void reduce(Text key, Iterable<Text> values, Context context)
        throws IOException, InterruptedException {
      List<String> left = new ArrayList<>();
      List<String> right = new ArrayList<>();
      for (Text t : values) {
        String s = t.toString();
        (s.startsWith("L") ? left : right).add(s.substring(1));
      }
      // values arrive in the order map outputs were merged: sort so the output is the data's
      Collections.sort(left);
      Collections.sort(right);
      for (String l : left) {
        for (String r : right) {
          out.set(l + "," + r);
          context.write(key, out);
        }
      }
    }
  }
}
