/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.bench.scale;

import io.rdmashuffle.counters.CounterDescriptor;
import io.rdmashuffle.metrics.TransportCounter;
import io.rdmashuffle.serve.ServingCounter;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One configuration of the scale benchmark, measured: {@code outputs} per server, {@code readers}
 * at once, over the window between the reader's two marks.
 *
 * @param maxOpenOutputs the serving process's {@code serve.maxOpenOutputs} (derived from its
 *     limits)
 * @param seconds the measured window
 * @param locateCalls locate calls the readers made in the window
 * @param located map outputs the server located (answered OK) in the window
 * @param registrations registrations since the server started (at commit and on demand)
 * @param reads READs the server served in the window
 * @param bytes bytes the server served in the window
 * @param cpuSeconds the serving process's CPU time in the window (all its threads, {@code
 *     /proc/PID/stat})
 * @param busy locate entries the server answered busy in the window
 * @param waits locates that waited for room in the window
 * @param failedTasks reduce tasks that failed (none should)
 */
record ScaleRow(
    int outputs,
    int readers,
    int maxOpenOutputs,
    double seconds,
    long locateCalls,
    long located,
    long registrations,
    long reads,
    long bytes,
    double cpuSeconds,
    long busy,
    long waits,
    ProcessFootprint peak,
    int failedTasks,
    List<String> failures) {

  static ScaleRow of(
      int outputs,
      int readers,
      int maxOpenOutputs,
      Map<String, String> readStart,
      Map<String, String> readEnd,
      Map<String, String> serveStart,
      Map<String, String> serveEnd,
      ProcessFootprint before,
      ProcessFootprint after,
      ProcessFootprint peak,
      ReaderResults reader) {
    return new ScaleRow(
        outputs,
        readers,
        maxOpenOutputs,
        (delta(readEnd, readStart, "micros")) / 1e6,
        delta(readEnd, readStart, "locates"),
        delta(serveEnd, serveStart, ServingCounter.LOCATED),
        Long.parseLong(serveEnd.get(ServingCounter.REGISTRATIONS.exportName())),
        delta(serveEnd, serveStart, TransportCounter.READS_SERVED),
        delta(serveEnd, serveStart, TransportCounter.BYTES_SERVED),
        after.cpuSeconds() - before.cpuSeconds(),
        delta(serveEnd, serveStart, ServingCounter.BUSY),
        delta(serveEnd, serveStart, ServingCounter.WAITS),
        peak.max(after),
        reader.failedTasks(),
        reader.failures());
  }

  /** The change of a serving process's counter, by its declared name. */
  private static long delta(
      Map<String, String> end, Map<String, String> start, CounterDescriptor counter) {
    return delta(end, start, counter.exportName());
  }

  private static long delta(Map<String, String> end, Map<String, String> start, String key) {
    return Long.parseLong(end.getOrDefault(key, "0"))
        - Long.parseLong(start.getOrDefault(key, "0"));
  }

  boolean clean() {
    return failedTasks == 0;
  }

  String brief() {
    return String.format(
        Locale.ROOT,
        "%d outputs, %d readers: %.0f located/s, %.0f READs/s, %.2f cores",
        outputs,
        readers,
        located / seconds,
        reads / seconds,
        cpuSeconds / seconds);
  }

  static String report(String machine, String command, List<ScaleRow> rows) {
    StringBuilder b =
        new StringBuilder("# Serving at scale: one serving process, many readers\n\n");
    b.append("```\n").append(machine).append("command: ").append(command).append("\n```\n\n");
    b.append(
        "One serving JVM (the serving side an executor runs, bounds derived from its limits:"
            + " `serve.maxOpenOutputs` below) and one reading JVM on loopback, tcp. Each reduce"
            + " task reads one partition of every map output; the readers run that many tasks at"
            + " once, over and over. Figures over the measured window: locate calls and map"
            + " outputs located per second, registrations per output (since the server started:"
            + " at commit, as an executor registers, and on demand), READs and MiB served per"
            + " second, the serving process's CPU in cores (`/proc/PID/stat`, every thread) and per READ, its peak"
            + " descriptors, mappings and resident size, busy answers and locates that waited"
            + " for room.\n\n");
    b.append(
        "| outputs | readers | maxOpenOutputs | locate calls/s | located/s | registrations/output |"
            + " READs/s | MiB/s | serving CPU (cores) | CPU µs/READ | busy | waits | fds |"
            + " mappings | RSS MiB | failed tasks |\n");
    b.append(
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
            + " ---: | ---: | ---: | ---: |\n");
    for (ScaleRow r : rows) {
      b.append(
          String.format(
              Locale.ROOT,
              "| %d | %d | %d | %.0f | %.0f | %.2f | %.0f | %.1f | %.2f | %.1f | %d | %d | %d | %d"
                  + " | %d | %d |\n",
              r.outputs,
              r.readers,
              r.maxOpenOutputs,
              r.locateCalls / r.seconds,
              r.located / r.seconds,
              (double) r.registrations / r.outputs,
              r.reads / r.seconds,
              r.bytes / r.seconds / 1048576,
              r.cpuSeconds / r.seconds,
              r.reads == 0 ? 0 : r.cpuSeconds * 1e6 / r.reads,
              r.busy,
              r.waits,
              r.peak.fds(),
              r.peak.mappings(),
              r.peak.rssBytes() >> 20,
              r.failedTasks));
    }
    for (ScaleRow r : rows) {
      if (!r.failures.isEmpty()) {
        b.append("\nFailures at ")
            .append(r.outputs)
            .append(" outputs, ")
            .append(r.readers)
            .append(" readers:\n");
        for (String f : r.failures) {
          b.append("* ").append(f).append('\n');
        }
      }
    }
    return b.toString();
  }
}
