/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.qualify;

import io.rdmashuffle.tools.Cli;
import io.rdmashuffle.tools.Progress;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@link Qualify}'s {@code run} step, the default: checks every host of {@code --hosts} (here, or
 * by its own {@code host} step through {@code --remote}), then every pair ({@link PairTests}), then
 * the Spark step ({@link SparkStep}) when asked for, with progress on stderr; writes the report
 * ({@link Report}) and prints the verdict and what to do about each failure and warning.
 */
final class RunStep {
  private final Qualify.Args args;

  RunStep(Qualify.Args args) {
    this.args = args;
  }

  /**
   * Runs every step and writes the report.
   *
   * @return the exit status: 0 when no check failed, 1 when one did
   */
  int run(PrintStream out) throws Exception {
    Remote remote;
    try {
      remote = new Remote(args.remote(), System.getProperty("qualify.command", "bin/rdma-shuffle"));
    } catch (IllegalArgumentException e) {
      throw new Cli.UsageError(e.getMessage());
    }
    List<String> tests = args.tests();
    if (tests == null) {
      tests =
          args.sparkMaster() == null
              ? List.of("host", "perftest", "read")
              : List.of("host", "perftest", "read", "spark");
    }
    if (tests.contains("spark") && (args.sparkMaster() == null || args.sparkHome() == null)) {
      throw new Cli.UsageError("the spark step needs --spark-master and --spark-home");
    }
    List<Integer> sizes = args.sizes();
    List<String> hosts =
        args.hosts() == null
            ? java.util.Collections.singletonList(null)
            : Arrays.stream(args.hosts().split(",")).map(String::trim).toList();
    List<String> steps = new ArrayList<>();
    hosts.forEach(h -> steps.add("host"));
    int pairs = hosts.size() * (hosts.size() - 1) / 2;
    for (int i = 0; i < pairs; i++) {
      if (tests.contains("perftest")) {
        sizes.forEach(s -> steps.add("ib_read_bw " + s));
        sizes.forEach(s -> steps.add("ib_read_lat " + s));
      }
      if (tests.contains("read")) {
        steps.add("rdma-shuffle READ");
      }
    }
    if (tests.contains("spark")) {
      steps.add("spark");
    }
    Progress progress = Progress.onStderr(steps);
    List<HostReport> reports = new ArrayList<>();
    for (String h : hosts) {
      long t0 = System.nanoTime();
      HostReport r = host(remote, h);
      reports.add(r);
      progress.step("host", (System.nanoTime() - t0) / 1e9, "checked host " + r.label());
    }
    List<Check> pairChecks = new ArrayList<>();
    List<PairTests.Figures> figures = new ArrayList<>();
    PairTests pt =
        new PairTests(
            remote,
            new PairTests.Options(
                tests, sizes, args.iterations(), args.timeout(), args.gidIndex(), args.settings()),
            pairChecks,
            figures);
    for (int i = 0; i < reports.size(); i++) {
      for (int j = i + 1; j < reports.size(); j++) {
        pt.run(
            reports.get(i),
            reports.get(j),
            (what, t0) -> progress.step(what, (System.nanoTime() - t0) / 1e9, what));
      }
    }
    if (tests.contains("spark")) {
      long t0 = System.nanoTime();
      Map<String, String> ours = new TreeMap<>(args.values());
      new SparkStep(
              new SparkStep.Options(
                  Path.of(args.sparkHome()),
                  args.sparkMaster(),
                  args.sparkBytes(),
                  args.sparkExecutors(),
                  System.getProperty("qualify.pluginJar", ""),
                  System.getProperty("qualify.appJar", ""),
                  ours,
                  args.timeout() * 5,
                  args.out()))
          .run(pairChecks);
      progress.step("spark", (System.nanoTime() - t0) / 1e9, "Spark shuffle, stock and ours");
    }
    progress.finish();
    Report.Result result =
        new Report.Result(
            "rdma-shuffle qualify",
            about(hosts, args.remote(), tests, sizes, args.iterations(), args.gidIndex()),
            reports,
            pairChecks,
            figures);
    Report.write(args.out(), result);
    out.println(result.verdict());
    for (Check c : result.all()) {
      if (c.verdict() == Verdict.FAIL || c.verdict() == Verdict.WARN) {
        out.println("  " + c.verdict() + " " + c.scope() + ", " + c.name() + ": " + c.found());
        out.println("    what to do: " + c.advice());
      }
    }
    out.println(
        "report: " + args.out().resolve("report.md") + " and " + args.out().resolve("report.html"));
    return result.failed() ? 1 : 0;
  }

  private HostReport host(Remote remote, String host) throws IOException, InterruptedException {
    if (remote.local()) {
      return HostProbe.local().run(host, args.conf(), args.gidIndex());
    }
    List<String> argv = new ArrayList<>(List.of("host", "--address", host));
    if (args.gidIndex() != null) {
      argv.addAll(List.of("--gid-index", args.gidIndex().toString()));
    }
    argv.addAll(args.settings());
    Process p = remote.start(remote.qualifyArgv(host, argv));
    p.getOutputStream().close();
    String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0 || !text.contains("host=")) {
      List<Check> c = new ArrayList<>();
      c.add(
          Check.blocking(
              host,
              "reach the host",
              "its step did not answer (status " + p.exitValue() + "): " + Perftest.tail(err, 3),
              "Check that the --remote command reaches "
                  + host
                  + " without a password and that bin/rdma-shuffle is at "
                  + System.getProperty("qualify.command", "bin/rdma-shuffle")
                  + " there."));
      return new HostReport(host, Map.of(), c);
    }
    return HostReport.parse(text);
  }

  private static List<String> about(
      List<String> hosts,
      String remote,
      List<String> tests,
      List<Integer> sizes,
      int iterations,
      Integer gidIndex) {
    List<String> out = new ArrayList<>();
    out.add(
        "hosts: "
            + (hosts.get(0) == null ? "this host" : String.join(", ", hosts))
            + " (remote: "
            + remote
            + ")");
    out.add(
        "steps: "
            + String.join(", ", tests)
            + "; sizes "
            + String.join(", ", sizes.stream().map(Report::size).toList())
            + ", "
            + iterations
            + " READs per size"
            + (gidIndex == null ? "; perftest through RDMA-CM" : "; GID index " + gidIndex));
    out.add(
        "run on "
            + System.getProperty("os.name")
            + " "
            + System.getProperty("os.version")
            + ", Java "
            + System.getProperty("java.version")
            + ", "
            + LocalDateTime.now().format(DateTimeFormatter.ISO_LOCAL_DATE_TIME).substring(0, 19));
    return out;
  }
}
