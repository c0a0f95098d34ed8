/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.bench;

import io.rdmashuffle.cluster.net.Rate;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

/**
 * One run of {@link NetworkPathApp} as the runner records it: what the application measured ({@code
 * result.properties}) and what the runner sampled of its executors' threads.
 *
 * @param side {@code stock} or {@code ours}
 * @param round 1-based round of its setting
 * @param jobMillis the shuffle job, as the driver timed it
 * @param mapStageMillis the map stage, submission to completion
 * @param reduceStageMillis the reduce stage, submission to completion
 * @param reduceStageSubmitted the reduce stage's submission, wall-clock millis of the driver
 * @param reduceFirstLaunch millis from the reduce stage's submission to its first task's launch
 * @param reduceLastLaunch millis from the reduce stage's submission to its last task's launch
 * @param reduceRunMillis the reduce tasks' run time, summed
 * @param fetchWaitMillis the reduce tasks' time waiting for blocks, summed
 * @param remoteBytes bytes the reduce tasks read from other executors: the bytes served
 * @param records records the reduce tasks counted
 * @param bytes bytes of those records
 * @param checksum sum of the records' CRC32C, hex
 * @param cpu the executors' threads over the job
 * @param appSeconds spark-submit to the driver's exit
 * @param executors executor id to host, as the driver saw them
 * @param load the machine's load average (1, 5, 15 min) when the run started
 */
record RunResult(
    String side,
    int round,
    long jobMillis,
    long mapStageMillis,
    long reduceStageMillis,
    long reduceStageSubmitted,
    long reduceFirstLaunch,
    long reduceLastLaunch,
    long reduceRunMillis,
    long fetchWaitMillis,
    long remoteBytes,
    long records,
    long bytes,
    String checksum,
    ServingCpuProbe.Sampled cpu,
    double appSeconds,
    String executors,
    String load) {

  static RunResult read(
      String side,
      int round,
      Path resultFile,
      ServingCpuProbe.Sampled cpu,
      double appSeconds,
      String load) {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(resultFile)) {
      p.load(r);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    long failed = Long.parseLong(p.getProperty("failedReduceTasks"));
    if (failed != 0) {
      throw new IllegalStateException(
          side
              + " round "
              + round
              + ": "
              + failed
              + " reduce tasks failed; the run does not measure a clean shuffle");
    }
    return new RunResult(
        side,
        round,
        num(p, "jobMillis"),
        num(p, "mapStageMillis"),
        num(p, "reduceStageMillis"),
        num(p, "reduceStageSubmitted"),
        num(p, "reduceFirstLaunch"),
        num(p, "reduceLastLaunch"),
        num(p, "reduceRunMillis"),
        num(p, "fetchWaitMillis"),
        num(p, "remoteBytes"),
        num(p, "records"),
        num(p, "bytes"),
        p.getProperty("checksum"),
        cpu,
        appSeconds,
        p.getProperty("executors"),
        load);
  }

  private static long num(Properties p, String key) {
    String v = p.getProperty(key);
    if (v == null) {
      throw new IllegalStateException("result.properties has no " + key);
    }
    return Long.parseLong(v);
  }

  double jobSeconds() {
    return jobMillis / 1e3;
  }

  double mapStageSeconds() {
    return mapStageMillis / 1e3;
  }

  double reduceStageSeconds() {
    return reduceStageMillis / 1e3;
  }

  /** Share of the reduce tasks' run time spent waiting for blocks. */
  double fetchWaitShare() {
    return reduceRunMillis == 0 ? 0 : (double) fetchWaitMillis / reduceRunMillis;
  }

  double servingCpuSeconds() {
    return (double) cpu.servingTotal() / ThreadCpu.TICKS_PER_SECOND;
  }

  /** Serving threads' CPU seconds per GB (10^9 bytes) served. */
  double servingCpuPerGb() {
    return remoteBytes == 0 ? Double.NaN : servingCpuSeconds() / (remoteBytes / 1e9);
  }

  /** Serving threads' CPU seconds per GB served, from schedstat; NaN without. */
  double servingSchedCpuPerGb() {
    return cpu.servingNanos() < 0 || remoteBytes == 0
        ? Double.NaN
        : cpu.servingNanos() / 1e9 / (remoteBytes / 1e9);
  }

  double executorCpuSeconds() {
    return (double) cpu.executorTicks() / ThreadCpu.TICKS_PER_SECOND;
  }

  /**
   * The executors' CPU seconds from the reduce stage's submission to the job's end; NaN without.
   */
  double reduceCpuSeconds() {
    return cpu.reduceExecutorTicks() < 0
        ? Double.NaN
        : (double) cpu.reduceExecutorTicks() / ThreadCpu.TICKS_PER_SECOND;
  }

  /**
   * The share of this machine's cores the executors used until the links were first half busy
   * ({@link StageTimeline#cpuShareBefore}); NaN without a rate, samples or a busy interval.
   */
  double startCpuShare(Rate rate) {
    return rate == null || cpu.links() == null
        ? Double.NaN
        : cpu.links().cpuShareBefore(rate, Runtime.getRuntime().availableProcessors());
  }

  /** Seconds from the reduce stage's submission to its last task's launch. */
  double lastLaunchSeconds() {
    return reduceLastLaunch / 1e3;
  }

  /** The busiest link's bytes over the mean host's ({@link StageTimeline#balance}); NaN without. */
  double linkBalance() {
    return cpu.links() == null ? Double.NaN : cpu.links().balance();
  }

  /** The busiest link's bytes over the reduce stage, MB; NaN without link samples. */
  double busiestLinkMegabytes() {
    return cpu.links() == null ? Double.NaN : cpu.links().busiestBytes() / 1e6;
  }

  /**
   * Seconds from the reduce stage's submission until the links were first at least half busy
   * ({@link StageTimeline#start}); NaN without a rate, link samples or a busy interval.
   */
  double linkStartSeconds(Rate rate) {
    if (rate == null || cpu.links() == null) {
      return Double.NaN;
    }
    long m = cpu.links().start(reduceStageSubmitted, rate);
    return m < 0 ? Double.NaN : m / 1e3;
  }

  /**
   * Seconds the reduce stage went on after the links were last at least half busy ({@link
   * StageTimeline#tail}); NaN without a rate, link samples or a busy interval.
   */
  double linkTailSeconds(Rate rate) {
    if (rate == null || cpu.links() == null) {
      return Double.NaN;
    }
    long m = cpu.links().tail(reduceStageSubmitted + reduceStageMillis, rate);
    return m < 0 ? Double.NaN : m / 1e3;
  }

  Map<String, Long> servingByPrefix() {
    return cpu.servingTicks();
  }

  /** What must be equal between the two sides: the reduce tasks' count, bytes and checksum. */
  String digest() {
    return records + " records, " + bytes + " bytes, checksum " + checksum;
  }
}
