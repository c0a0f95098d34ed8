/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.yarn;

import io.rdmashuffle.cluster.Probes;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * How a {@link MapReduceJob} ended: the client's exit code and log, and what the job driver
 * reported (job id and state, counters by group and name, each task attempt's host), plus the job's
 * output as written to the shared folder.
 */
public final class JobReport {
  private final String name;
  private final int exitCode;
  private final Properties report;
  private final Path log;
  private final Path output;
  private final double seconds;

  private JobReport(
      String name, int exitCode, Properties report, Path log, Path output, double seconds) {
    this.name = name;
    this.exitCode = exitCode;
    this.report = report;
    this.log = log;
    this.output = output;
    this.seconds = seconds;
  }

  static JobReport read(
      String name, int exitCode, Path file, Path log, Path output, double seconds) {
    Properties p = new Properties();
    if (Files.exists(file)) {
      try (InputStream in = Files.newInputStream(file)) {
        p.load(in);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + file, e);
      }
    }
    return new JobReport(name, exitCode, p, log, output, seconds);
  }

  public boolean succeeded() {
    return exitCode == 0 && Boolean.parseBoolean(report.getProperty("job.successful"));
  }

  public int exitCode() {
    return exitCode;
  }

  public String jobId() {
    return report.getProperty("job.id", "?");
  }

  public double seconds() {
    return seconds;
  }

  /**
   * A counter by its group's name or display name ({@code rdma-shuffle}, {@code
   * org.apache.hadoop.mapreduce.TaskCounter}) and its name ({@code MAPS_READ}); 0 when the job has
   * no such counter.
   */
  public long counter(String group, String counter) {
    for (String k : report.stringPropertyNames()) {
      if (k.startsWith("group.")) {
        String g = k.substring("group.".length());
        if (g.equals(group) || report.getProperty(k).equals(group)) {
          return Long.parseLong(report.getProperty("counter." + g + "." + counter, "0"));
        }
      }
    }
    return 0;
  }

  /** Hosts (as {@code rs-h2}) where successful attempts of maps ({@code MAP}) or reduces ran. */
  public List<String> hosts(String type) {
    List<String> out = new ArrayList<>();
    for (String k : report.stringPropertyNames()) {
      if (k.startsWith("task.")) {
        String[] v = report.getProperty(k).split(" ");
        if (v.length == 3 && v[0].equals(type) && v[1].equals("SUCCEEDED")) {
          out.add(v[2].replaceFirst("^https?://", "").replaceFirst(":\\d+$", ""));
        }
      }
    }
    out.sort(null);
    return out;
  }

  /**
   * Every attempt of maps ({@code MAP}) or reduces that ran on {@code host}, whatever its end, as
   * {@code "attempt_... STATUS"} ({@code SUCCEEDED}, {@code KILLED}, {@code OBSOLETE}, ...).
   */
  public List<String> attempts(String type, String host) {
    List<String> out = new ArrayList<>();
    for (String k : report.stringPropertyNames()) {
      if (k.startsWith("task.")) {
        String[] v = report.getProperty(k).split(" ");
        if (v.length == 3
            && v[0].equals(type)
            && v[2].replaceFirst("^https?://", "").replaceFirst(":\\d+$", "").equals(host)) {
          out.add(k.substring("task.".length()) + " " + v[1]);
        }
      }
    }
    out.sort(null);
    return out;
  }

  /** The job's output: its part files in name order, concatenated. */
  public byte[] output() {
    try (Stream<Path> s = Files.list(output)) {
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      for (Path part :
          s.filter(f -> f.getFileName().toString().startsWith("part-")).sorted().toList()) {
        all.write(Files.readAllBytes(part));
      }
      return all.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the output of " + name + " in " + output, e);
    }
  }

  /** What a failed assertion should show: state, failure, the end of the client's log. */
  public String describe() {
    return name
        + " ("
        + jobId()
        + "): exit "
        + exitCode
        + ", state "
        + report.getProperty("job.state", "?")
        + ", "
        + String.format("%.1f s", seconds)
        + ("".equals(report.getProperty("job.failureInfo", ""))
            ? ""
            : ", failure: " + report.getProperty("job.failureInfo"))
        + "\n"
        + Probes.tail(log, 40);
  }

  @Override
  public String toString() {
    return name + " " + jobId() + (succeeded() ? " succeeded" : " failed");
  }
}
