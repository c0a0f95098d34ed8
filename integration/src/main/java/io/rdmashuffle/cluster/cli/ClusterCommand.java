/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.cli;

import io.rdmashuffle.cluster.Cluster;
import io.rdmashuffle.cluster.ClusterPaths;
import io.rdmashuffle.cluster.ClusterSpec;
import io.rdmashuffle.cluster.Daemon;
import io.rdmashuffle.cluster.Host;
import io.rdmashuffle.cluster.net.Ownership;
import io.rdmashuffle.cluster.net.Rate;
import io.rdmashuffle.cluster.net.Root;
import io.rdmashuffle.cluster.net.Teardown;
import io.rdmashuffle.tools.Cli;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code bin/rdma-shuffle cluster} ({@code integration/bin/cluster}): the cluster harness for
 * people. {@code up} builds a cluster and leaves it running (an interrupted {@code up} removes what
 * it built); the other commands act on the running cluster by name.
 */
public final class ClusterCommand {
  static final String USAGE =
      """
      usage: bin/rdma-shuffle cluster COMMAND
        up [--hosts 3] [--rate 300mbit] [--engines spark,yarn|spark|yarn|none]
           [--worker-cores 2] [--worker-memory 1g]
           [--stock-shuffle-service] [--multi-user] [--subnet 198.18.100]
                               start a cluster and leave it running; --worker-*:
                               what each Spark Worker offers; --multi-user:
                               NodeManagers as yarn, containers as their job's user
                               (rs-alice, rs-bob) through LinuxContainerExecutor
        status                 hosts, addresses, links, qdiscs, processes
        down [--force]         remove the cluster (and any leftovers of a crashed run)
        exec HOST -- CMD...    run CMD inside HOST (rs-h2 or 2)
        client -- CMD...       run CMD in the root namespace as the cluster's client
        link HOST down|up      pull or plug HOST's cable
        rate HOST RATE|none    limit HOST's link with tbf (both directions)
        kill HOST              kill every process of HOST
        restart HOST DAEMON    restart one daemon (spark-master, spark-worker,
                               resourcemanager, historyserver, nodemanager)
      The cluster harness: hosts as network namespaces on this machine (198.18.100.0/24 on a
      bridge), Spark standalone and YARN daemons. Needs root. Work folders and logs:
      integration/target/cluster/.
      """;

  private static final List<String> COMMANDS =
      List.of("up", "status", "down", "exec", "client", "link", "rate", "kill", "restart");

  private ClusterCommand() {}

  public static void main(String[] args) {
    Cli.main("cluster", USAGE, args, a -> run(a, System.out));
  }

  /** A command line's mistakes are found before root is needed, so they read the same for all. */
  static int run(Cli a, PrintStream out) throws Exception {
    String command = a.positional("COMMAND");
    if (command.equals("help")) {
      out.print(USAGE);
      return 0;
    }
    if (!COMMANDS.contains(command)) {
      throw new Cli.UsageError("unknown command " + command);
    }
    try {
      return switch (command) {
        case "up" -> up(a, out);
        case "status" -> status(a, out);
        case "down" -> down(a, out);
        case "exec" -> exec(a.remaining());
        case "client" -> client(a.remaining());
        case "link" -> link(a.remaining(), out);
        case "rate" -> rate(a.remaining(), out);
        case "kill" -> kill(a.remaining(), out);
        default -> restart(a.remaining(), out);
      };
    } catch (Cli.UsageError e) {
      throw e;
    } catch (IllegalArgumentException | IllegalStateException | java.io.UncheckedIOException e) {
      System.err.println("cluster: " + e.getMessage());
      return 1;
    }
  }

  private static int up(Cli a, PrintStream out) {
    ClusterSpec.Builder b = ClusterSpec.builder("cli");
    b.hosts(a.intOption("hosts", 3));
    Rate rate = a.option("rate", null, Rate::parse);
    if (rate != null) {
      b.rate(rate);
    }
    String engines = a.option("engines", "spark,yarn");
    int workerCores = a.intOption("worker-cores", ClusterSpec.Builder.DEFAULT_WORKER_CORES);
    String workerMemory = a.option("worker-memory", ClusterSpec.Builder.DEFAULT_WORKER_MEMORY);
    if (workerCores < 1 || !workerMemory.matches("[0-9]+[mg]")) {
      throw new Cli.UsageError("--worker-cores takes a count, --worker-memory a size like 2g");
    }
    b.workers(workerCores, workerMemory);
    if (a.flag("stock-shuffle-service")) {
      b.stockShuffleService();
    }
    if (a.flag("multi-user")) {
      b.multiUser();
    }
    String subnet = a.option("subnet", null);
    if (subnet != null) {
      b.subnet(subnet);
    }
    a.done();
    for (String e : engines.split(",")) {
      switch (e.trim()) {
        case "spark" -> b.spark();
        case "yarn" -> b.yarn();
        case "none", "" -> {}
        default -> throw new Cli.UsageError("--engines: unknown engine " + e);
      }
    }
    Root.require();
    // until detach(), an interrupt (Ctrl-C, SIGTERM) runs the shutdown hook: all is removed
    Cluster c = Cluster.start(b.build(), ClusterPaths.fromSystemProperties());
    c.detach();
    describe(c, out);
    out.println("`bin/rdma-shuffle cluster down` removes it.");
    return 0;
  }

  private static void describe(Cluster c, PrintStream out) {
    out.println("client (root namespace): " + c.edge().address());
    for (Host h : c.hosts()) {
      out.println(h.name() + " " + h.address() + ": " + h.daemons());
    }
    if (c.spec().spark()) {
      out.println("Spark master: " + c.spark().masterUrl());
    }
    if (c.spec().yarn()) {
      out.println(
          "YARN: HADOOP_CONF_DIR="
              + c.yarn().clientConf()
              + ", ResourceManager web http://"
              + c.host(1).address()
              + ":8088");
    }
  }

  private static int status(Cli a, PrintStream out) {
    a.done();
    Root.require();
    out.println("owner: " + Ownership.owner().map(Object::toString).orElse("none"));
    List<String> ns = Teardown.namespaces();
    if (ns.isEmpty()) {
      out.println("no cluster hosts (network namespaces rs-h*)");
    }
    Cluster c =
        ns.isEmpty() || Ownership.owner().isEmpty()
            ? null
            : Cluster.attach(ClusterPaths.fromSystemProperties());
    for (String n : ns) {
      out.println(n + ":");
      if (c != null) {
        int i = Integer.parseInt(n.substring(4));
        out.println(
            "  address "
                + c.host(i).address()
                + ", link "
                + (c.network().linkUp(i) ? "up" : "DOWN")
                + ", qdiscs: "
                + c.network().qdiscs(i));
      }
      for (long pid : Teardown.pids(n)) {
        out.println("  " + pid + " " + mainOf(pid));
      }
    }
    out.println("links: " + Teardown.links());
    return 0;
  }

  /** A process's main class (a JVM's last non-option argument before its own) or command. */
  private static String mainOf(long pid) {
    try {
      String[] argv =
          new String(Files.readAllBytes(Path.of("/proc/" + pid + "/cmdline"))).split("\0");
      for (int i = 1; i < argv.length; i++) {
        if (argv[i].matches("(org|io)\\.[\\w.]+") && argv[0].endsWith("java")) {
          return "java " + argv[i];
        }
      }
      return String.join(" ", argv).substring(0, Math.min(100, String.join(" ", argv).length()));
    } catch (IOException e) {
      return "(gone)";
    }
  }

  private static int down(Cli a, PrintStream out) {
    boolean force = a.flag("force");
    a.done();
    Root.require();
    Ownership.owner()
        .ifPresent(
            o -> {
              if (!o.detached() && ProcessHandle.of(o.pid()).isPresent() && !force) {
                throw new IllegalStateException(
                    "the cluster belongs to running process "
                        + o
                        + " (a test?); `down --force` removes it anyway");
              }
            });
    Teardown.all();
    Ownership.release();
    out.println("removed: no rs-h* namespaces, rs-* links or harness processes left");
    return 0;
  }

  private static int exec(List<String> args) throws Exception {
    int dash = args.indexOf("--");
    if (args.isEmpty() || dash < 1 || dash == args.size() - 1) {
      throw new Cli.UsageError("exec takes HOST -- CMD...");
    }
    Root.require();
    Cluster c = Cluster.attach(ClusterPaths.fromSystemProperties());
    return inherit(c.host(host(args.get(0))).wrap(args.subList(dash + 1, args.size())));
  }

  private static int client(List<String> args) throws Exception {
    if (args.size() < 2 || !args.get(0).equals("--")) {
      throw new Cli.UsageError("client takes -- CMD...");
    }
    Root.require();
    Cluster c = Cluster.attach(ClusterPaths.fromSystemProperties());
    return inherit(c.edge().wrap(args.subList(1, args.size())));
  }

  private static int inherit(List<String> cmd) throws Exception {
    return new ProcessBuilder(cmd).inheritIO().start().waitFor();
  }

  private static int link(List<String> args, PrintStream out) {
    if (args.size() != 2 || !List.of("up", "down").contains(args.get(1))) {
      throw new Cli.UsageError("link takes HOST down|up");
    }
    Root.require();
    Cluster c = Cluster.attach(ClusterPaths.fromSystemProperties());
    c.network().link(host(args.get(0)), args.get(1).equals("up"));
    out.println(c.host(host(args.get(0))).name() + " link " + args.get(1));
    return 0;
  }

  private static int rate(List<String> args, PrintStream out) {
    if (args.size() != 2) {
      throw new Cli.UsageError("rate takes HOST RATE|none");
    }
    Root.require();
    Cluster c = Cluster.attach(ClusterPaths.fromSystemProperties());
    int i = host(args.get(0));
    c.network().rate(i, args.get(1).equals("none") ? null : Rate.parse(args.get(1)));
    out.println(c.network().qdiscs(i));
    return 0;
  }

  private static int kill(List<String> args, PrintStream out) {
    if (args.size() != 1) {
      throw new Cli.UsageError("kill takes HOST");
    }
    Root.require();
    Cluster c = Cluster.attach(ClusterPaths.fromSystemProperties());
    Host h = c.host(host(args.get(0)));
    List<Long> pids = new ArrayList<>(h.pids());
    h.killAll();
    out.println(h.name() + ": killed " + pids);
    return 0;
  }

  private static int restart(List<String> args, PrintStream out) {
    if (args.size() != 2) {
      throw new Cli.UsageError("restart takes HOST DAEMON");
    }
    Root.require();
    Cluster c = Cluster.attach(ClusterPaths.fromSystemProperties());
    Daemon d = c.restart(host(args.get(0)), args.get(1), 5_000);
    out.println("restarted " + d + ", log " + d.spec().log());
    return 0;
  }

  /** {@code rs-h2} or {@code 2} to 2. */
  static int host(String name) {
    String n = name.startsWith("rs-h") ? name.substring(4) : name;
    try {
      return Integer.parseInt(n);
    } catch (NumberFormatException e) {
      throw new Cli.UsageError("host " + name + ": must be rs-hN or N");
    }
  }
}
