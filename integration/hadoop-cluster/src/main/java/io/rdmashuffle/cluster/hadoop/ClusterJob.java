/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.hadoop;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.mapreduce.Counter;
import org.apache.hadoop.mapreduce.CounterGroup;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskCompletionEvent;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;

/**
 * Submits one MapReduce job of {@link Jobs} to the cluster its configuration names, waits for it,
 * and writes what the harness's tests check into a report file (a properties file): the job's id
 * and state, every counter by group and name (and each group's display name), and each task
 * attempt's outcome and host. The harness runs it as a client process on Hadoop's class path (never
 * next to Spark's).
 *
 * <pre>
 * ClusterJob [-D key=value]... JOB --report FILE [--reducers N] [--name NAME] INPUT... OUTPUT
 * </pre>
 *
 * Exit code 0 when the job succeeded, 1 when it failed, 2 on bad arguments.
 */
public final class ClusterJob extends Configured implements Tool {
  public static void main(String[] args) throws Exception {
    System.exit(ToolRunner.run(new Configuration(), new ClusterJob(), args));
  }

  @Override
  public int run(String[] args) throws Exception {
    JobArgs a;
    try {
      a = JobArgs.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("ClusterJob: " + e.getMessage());
      System.err.println(
          "usage: ClusterJob [-D key=value]... wordcount|sort|join|hold|trespass --report FILE"
              + " [--reducers N] [--name NAME] INPUT... OUTPUT");
      return 2;
    }
    Configuration conf = getConf();
    // the tests compare outputs and count READs: a speculative duplicate would change the counts
    conf.setBoolean(MRJobConfig.MAP_SPECULATIVE, false);
    conf.setBoolean(MRJobConfig.REDUCE_SPECULATIVE, false);
    Job job = Jobs.create(a, conf);
    boolean ok = job.waitForCompletion(true);
    write(job, ok, a.report());
    return ok ? 0 : 1;
  }

  /** The report: job, counters (through the job history server once the job is done), tasks. */
  private static void write(Job job, boolean ok, Path report) throws Exception {
    Properties p = new Properties();
    p.setProperty("job.id", job.getJobID().toString());
    p.setProperty("job.name", job.getJobName());
    p.setProperty("job.successful", Boolean.toString(ok));
    p.setProperty("job.state", String.valueOf(job.getStatus().getState()));
    String failure = job.getStatus().getFailureInfo();
    p.setProperty("job.failureInfo", failure == null ? "" : failure);
    if (job.getCounters() != null) {
      for (CounterGroup g : job.getCounters()) {
        p.setProperty("group." + g.getName(), g.getDisplayName());
        for (Counter c : g) {
          p.setProperty("counter." + g.getName() + "." + c.getName(), Long.toString(c.getValue()));
        }
      }
    }
    int from = 0;
    TaskCompletionEvent[] events;
    do {
      events = job.getTaskCompletionEvents(from, 100);
      for (TaskCompletionEvent e : events) {
        p.setProperty(
            "task." + e.getTaskAttemptId(),
            (e.isMapTask() ? "MAP " : "REDUCE ") + e.getStatus() + " " + e.getTaskTrackerHttp());
      }
      from += events.length;
    } while (events.length > 0);
    Path tmp = report.resolveSibling(report.getFileName() + ".tmp");
    Files.createDirectories(report.toAbsolutePath().getParent());
    try (OutputStream out = Files.newOutputStream(tmp)) {
      p.store(out, "ClusterJob report");
    }
    Files.move(
        tmp,
        report,
        java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }
}
