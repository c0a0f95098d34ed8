/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.qualify;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The checks of a pair of hosts, one serving and one reading: the MTU end to end, perftest's {@code
 * ib_read_bw} and {@code ib_read_lat}, and rdma-shuffle's own READs (their bytes checked, then
 * bandwidth and latency per size). Figures go to {@link #figures} for the report's charts.
 */
final class PairTests {
  /** What one pair measured, by key: {@code perftest.bw.SIZE}, {@code ours.lat.SIZE}, ... */
  record Figures(String pair, Map<String, Double> values) {}

  private final Remote remote;
  private final Options options;
  private final List<Check> checks;
  private final List<Figures> figures;

  /** What the pair tests do. */
  record Options(
      List<String> tests,
      List<Integer> sizes,
      int iterations,
      long timeoutSeconds,
      Integer gidIndex,
      List<String> settings) {
    boolean runs(String test) {
      return tests.contains(test);
    }
  }

  PairTests(Remote remote, Options options, List<Check> checks, List<Figures> figures) {
    this.remote = remote;
    this.options = options;
    this.checks = checks;
    this.figures = figures;
  }

  static String pairName(HostReport server, HostReport reader) {
    return reader.label() + " reads " + server.label();
  }

  void run(HostReport server, HostReport reader, Progress progress) {
    String scope = pairName(server, reader);
    mtu(scope, server, reader);
    Map<String, Double> values = new LinkedHashMap<>();
    figures.add(new Figures(scope, values));
    if (options.runs("perftest")) {
      perftest(scope, server, reader, values, progress);
    }
    if (options.runs("read")) {
      ours(scope, server, reader, values, progress);
    }
  }

  /** The interfaces' MTUs and the ports' active MTUs of both ends must be the same. */
  void mtu(String scope, HostReport a, HostReport b) {
    String am = a.facts().get("netdev.mtu");
    String bm = b.facts().get("netdev.mtu");
    String aa = a.facts().get("active_mtu");
    String ba = b.facts().get("active_mtu");
    if (am == null || bm == null || aa == null || ba == null) {
      checks.add(
          Check.skip(
              scope, "MTU end to end", "a host's MTU is unknown", "fix the hosts' checks first"));
      return;
    }
    String found =
        a.label()
            + ": "
            + a.facts().get("netdev")
            + " MTU "
            + am
            + ", active "
            + aa
            + "; "
            + b.label()
            + ": "
            + b.facts().get("netdev")
            + " MTU "
            + bm
            + ", active "
            + ba;
    if (am.equals(bm) && aa.equals(ba)) {
      checks.add(Check.pass(scope, "MTU end to end", found));
      return;
    }
    String smaller = Integer.parseInt(am) <= Integer.parseInt(bm) ? am : bm;
    checks.add(
        Check.fail(
            scope,
            "MTU end to end",
            found,
            "Each end sizes RoCE packets by its own interface's MTU: packets larger than a hop's"
                + " MTU are dropped, and READs above "
                + (Integer.parseInt(aa) <= Integer.parseInt(ba) ? aa : ba)
                + " bytes stall or time out. Set one MTU on every RoCE interface and switch port"
                + " of the path (e.g. 9000 everywhere, or ip link set dev "
                + (smaller.equals(am) ? b.facts().get("netdev") : a.facts().get("netdev"))
                + " mtu "
                + smaller
                + "), and persist it in the network configuration."));
  }

  private void perftest(
      String scope,
      HostReport server,
      HostReport reader,
      Map<String, Double> values,
      Progress progress) {
    String sd = server.facts().get("device");
    String rd = reader.facts().get("device");
    if (sd == null || rd == null) {
      checks.add(Check.skip(scope, "perftest", "no device on a host", "fix the hosts' checks"));
      return;
    }
    for (HostReport h : List.of(server, reader)) {
      if (h.facts().getOrDefault("perftest", "").isEmpty()) {
        checks.add(
            Check.skip(
                scope,
                "perftest",
                "perftest is not installed on " + h.label(),
                "apt-get install perftest (dnf install perftest) on every host; rdma-shuffle's"
                    + " own READs below still ran"));
        return;
      }
    }
    Perftest p = new Perftest(remote, options.timeoutSeconds());
    for (String tool : List.of("ib_read_bw", "ib_read_lat")) {
      for (int size : options.sizes()) {
        long t0 = System.nanoTime();
        Perftest.Result r =
            p.run(
                tool,
                server.host(),
                sd,
                reader.host(),
                rd,
                size,
                options.iterations(),
                options.gidIndex());
        progress.step(tool + " " + size, t0);
        String name = tool + " " + Report.size(size);
        if (r.ok()) {
          String key = (tool.equals("ib_read_bw") ? "perftest.bw." : "perftest.lat.") + size;
          values.put(key, r.value());
          checks.add(
              Check.info(
                  scope,
                  name,
                  String.format(
                          Locale.ROOT,
                          tool.equals("ib_read_bw") ? "%.2f MB/s" : "%.2f µs typical",
                          r.value())
                      + (options.gidIndex() == null
                          ? " (RDMA-CM)"
                          : " (GID index " + options.gidIndex() + ")")));
          continue;
        }
        checks.add(
            Check.fail(
                scope,
                name,
                r.failure() + ": " + Perftest.tail(r.output(), 3),
                options.gidIndex() == null
                    ? "perftest could not READ between these hosts: check the MTU end to end, the"
                        + " fabric's PFC/ECN, and that RDMA-CM's port (perftest -p) is not"
                        + " filtered."
                    : "perftest with GID index "
                        + options.gidIndex()
                        + " could not READ: see the GID checks of both hosts for the index RDMA-CM"
                        + " uses."));
        return; // the other sizes and the latency test would fail the same way
      }
    }
  }

  private void ours(
      String scope,
      HostReport server,
      HostReport reader,
      Map<String, Double> values,
      Progress progress) {
    if (server.blocksVerbs() || reader.blocksVerbs()) {
      checks.add(
          Check.skip(
              scope,
              "rdma-shuffle READ",
              "verbs can't be used on " + (server.blocksVerbs() ? server.label() : reader.label()),
              "fix that host's failed checks"));
      return;
    }
    long t0 = System.nanoTime();
    String secret = ReadAgent.hexSecret();
    List<String> serveArgs = new ArrayList<>(List.of("read-server", "--address", server.host()));
    serveArgs.addAll(
        List.of("--secret", secret, "--timeout", Long.toString(options.timeoutSeconds())));
    serveArgs.addAll(options.settings());
    Process s = null;
    try {
      s = remote.start(remote.qualifyArgv(server.host(), serveArgs));
      BufferedReader out =
          new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
      String ready = readyLine(out, s);
      if (ready == null) {
        String err = new String(s.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        checks.add(
            Check.fail(
                scope,
                "rdma-shuffle READ",
                "the serving side did not start: " + Perftest.tail(err, 3),
                "see the serving host's checks; run bin/rdma-shuffle doctor there"));
        return;
      }
      String[] f = ready.split(" ");
      String registration = f[6];
      List<String> readArgs =
          new ArrayList<>(
              List.of(
                  "read-client",
                  "--address",
                  reader.host(),
                  "--secret",
                  secret,
                  "--server",
                  f[1] + ":" + f[2],
                  "--region",
                  f[3] + ":" + f[4] + ":" + f[5],
                  "--sizes",
                  String.join(",", options.sizes().stream().map(String::valueOf).toList()),
                  "--iterations",
                  Integer.toString(options.iterations()),
                  "--timeout",
                  Long.toString(options.timeoutSeconds())));
      readArgs.addAll(options.settings());
      Map<String, String> got = client(remote.qualifyArgv(reader.host(), readArgs));
      progress.step("rdma-shuffle READ", t0);
      if (!got.containsKey("verify")) {
        checks.add(
            Check.blocking(
                scope,
                "rdma-shuffle READ",
                "the reader could not READ (served memory "
                    + registration
                    + "): "
                    + got.getOrDefault("error", "no answer"),
                "READs over verbs fail between these hosts: see the MTU, GID and PFC/ECN checks of"
                    + " both, and run bin/rdma-shuffle doctor on each; a timeout on a loaded host"
                    + " may only need a longer --timeout."));
        return;
      }
      String verify = got.get("verify");
      if (!verify.equals("ok")) {
        checks.add(
            Check.blocking(
                scope,
                "rdma-shuffle READ",
                "served memory " + registration + ": " + verify,
                registration.equals("on-demand")
                    ? "On-demand READs return wrong bytes on this device although its own check"
                        + " passed: set verbs.registration=pinned, and update the NIC's firmware"
                        + " and driver."
                    : "READs of pinned memory return wrong bytes between these hosts: do not use"
                        + " verbs here; report it with this report."));
        return;
      }
      checks.add(
          Check.pass(
              scope,
              "rdma-shuffle READ bytes",
              "every byte right in READs inside a page, across pages and across packets (served"
                  + " memory "
                  + registration
                  + ")"));
      for (int size : options.sizes()) {
        double bw = Double.parseDouble(got.getOrDefault("bw." + size, "NaN"));
        double lat = Double.parseDouble(got.getOrDefault("lat." + size, "NaN"));
        values.put("ours.bw." + size, bw);
        values.put("ours.lat." + size, lat);
        checks.add(
            Check.info(
                scope,
                "rdma-shuffle READ " + Report.size(size),
                String.format(Locale.ROOT, "%.2f MB/s, %.2f µs typical", bw, lat)
                    + ratio(values, size)));
      }
    } catch (Exception e) {
      checks.add(
          Check.fail(
              scope,
              "rdma-shuffle READ",
              "the test failed: " + e,
              "see the hosts' checks; run bin/rdma-shuffle doctor on both"));
    } finally {
      if (s != null) {
        try {
          s.getOutputStream().close(); // the server's cue to end
          if (!s.waitFor(60, TimeUnit.SECONDS)) {
            s.destroyForcibly();
          }
        } catch (Exception e) {
          s.destroyForcibly();
        }
      }
    }
  }

  private static String ratio(Map<String, Double> v, int size) {
    Double pb = v.get("perftest.bw." + size);
    Double pl = v.get("perftest.lat." + size);
    if (pb == null || pl == null) {
      return "";
    }
    return String.format(
        Locale.ROOT,
        "; against perftest: bandwidth %.2fx, latency %.2fx",
        v.get("ours.bw." + size) / pb,
        v.get("ours.lat." + size) / pl);
  }

  private String readyLine(BufferedReader out, Process s) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(options.timeoutSeconds() * 2);
    String line;
    while (System.nanoTime() < deadline && (line = out.readLine()) != null) {
      if (line.startsWith("ready ")) {
        return line;
      }
    }
    s.destroy();
    return null;
  }

  private Map<String, String> client(List<String> argv) throws Exception {
    java.nio.file.Path log = java.nio.file.Files.createTempFile("qualify-read", ".txt");
    try {
      Process c =
          new ProcessBuilder(argv)
              .redirectOutput(log.toFile())
              .redirectError(ProcessBuilder.Redirect.INHERIT)
              .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
              .start();
      long limit = options.timeoutSeconds() * (4 + 2L * options.sizes().size());
      if (!c.waitFor(limit, TimeUnit.SECONDS)) {
        c.destroyForcibly();
        return Map.of("error", "the reader did not end within " + limit + " s");
      }
      Map<String, String> got = new LinkedHashMap<>();
      for (String l : java.nio.file.Files.readAllLines(log, StandardCharsets.UTF_8)) {
        int eq = l.indexOf('=');
        if (eq > 0) {
          got.put(l.substring(0, eq), l.substring(eq + 1));
        }
      }
      if (got.isEmpty()) {
        got.put("error", "the reader exited with status " + c.exitValue() + " and said nothing");
      }
      return got;
    } finally {
      java.nio.file.Files.deleteIfExists(log);
    }
  }

  /** Progress of the steps: the driver's line per step. */
  interface Progress {
    void step(String what, long startNanos);
  }
}
