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
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@code integration/bin/cluster}: the cluster harness for people. {@code up} builds a cluster and
 * leaves it running (an interrupted {@code up} removes what it built); the other commands act on
 * the running cluster by name.
 */
public final class ClusterCommand {
  static final String USAGE =
      """
      usage: integration/bin/cluster COMMAND
        up [--hosts 3] [--rate 300mbit] [--engines spark,yarn|spark|yarn|none]
           [--stock-shuffle-service] [--subnet 198.18.100]
                               start a cluster and leave it running
        status                 hosts, addresses, links, qdiscs, processes
        down [--force]         remove the cluster (and any leftovers of a crashed run)
        exec HOST -- CMD...    run CMD inside HOST (rs-h2 or 2)
        client -- CMD...       run CMD in the root namespace as the cluster's client
        link HOST down|up      pull or plug HOST's cable
        rate HOST RATE|none    limit HOST's link with tbf (both directions)
        kill HOST              kill every process of HOST
        restart HOST DAEMON    restart one daemon (spark-master, spark-worker,
                               resourcemanager, historyserver, nodemanager)
      Needs root (network namespaces). Work folders and logs: integration/target/cluster/.
      """;

  private ClusterCommand() {}

  public static void main(String[] args) throws Exception {
    System.exit(run(args, System.out));
  }

  static int run(String[] args, PrintStream out) throws Exception {
    if (args.length == 0 || args[0].equals("--help") || args[0].equals("help")) {
      out.print(USAGE);
      return args.length == 0 ? 2 : 0;
    }
    if (!Root.isRoot()) {
      System.err.println("cluster: " + Root.NEEDED);
      return 1;
    }
    List<String> rest = Arrays.asList(args).subList(1, args.length);
    try {
      return switch (args[0]) {
        case "up" -> up(rest, out);
        case "status" -> status(out);
        case "down" -> down(rest, out);
        case "exec" -> exec(rest);
        case "client" -> client(rest);
        case "link" -> link(rest, out);
        case "rate" -> rate(rest, out);
        case "kill" -> kill(rest, out);
        case "restart" -> restart(rest, out);
        default -> {
          System.err.print("cluster: unknown command " + args[0] + "\n" + USAGE);
          yield 2;
        }
      };
    } catch (IllegalArgumentException | IllegalStateException | java.io.UncheckedIOException e) {
      System.err.println("cluster: " + e.getMessage());
      return 1;
    }
  }

  private static int up(List<String> args, PrintStream out) {
    ClusterSpec.Builder b = ClusterSpec.builder("cli");
    String engines = "spark,yarn";
    for (int i = 0; i < args.size(); i++) {
      switch (args.get(i)) {
        case "--hosts" -> b.hosts(Integer.parseInt(value(args, ++i)));
        case "--rate" -> b.rate(Rate.parse(value(args, ++i)));
        case "--engines" -> engines = value(args, ++i);
        case "--stock-shuffle-service" -> b.stockShuffleService();
        case "--subnet" -> b.subnet(value(args, ++i));
        default -> throw new IllegalArgumentException("up: unknown option " + args.get(i));
      }
    }
    for (String e : engines.split(",")) {
      switch (e.trim()) {
        case "spark" -> b.spark();
        case "yarn" -> b.yarn();
        case "none", "" -> {}
        default -> throw new IllegalArgumentException("--engines: unknown engine " + e);
      }
    }
    // until detach(), an interrupt (Ctrl-C, SIGTERM) runs the shutdown hook: all is removed
    Cluster c = Cluster.start(b.build(), ClusterPaths.fromSystemProperties());
    c.detach();
    describe(c, out);
    out.println("`integration/bin/cluster down` removes it.");
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

  private static int status(PrintStream out) {
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

  private static int down(List<String> args, PrintStream out) {
    boolean force = args.contains("--force");
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
      throw new IllegalArgumentException("usage: exec HOST -- CMD...");
    }
    Cluster c = Cluster.attach(ClusterPaths.fromSystemProperties());
    return inherit(c.host(host(args.get(0))).wrap(args.subList(dash + 1, args.size())));
  }

  private static int client(List<String> args) throws Exception {
    if (args.size() < 2 || !args.get(0).equals("--")) {
      throw new IllegalArgumentException("usage: client -- CMD...");
    }
    Cluster c = Cluster.attach(ClusterPaths.fromSystemProperties());
    return inherit(c.edge().wrap(args.subList(1, args.size())));
  }

  private static int inherit(List<String> cmd) throws Exception {
    return new ProcessBuilder(cmd).inheritIO().start().waitFor();
  }

  private static int link(List<String> args, PrintStream out) {
    if (args.size() != 2 || !List.of("up", "down").contains(args.get(1))) {
      throw new IllegalArgumentException("usage: link HOST down|up");
    }
    Cluster c = Cluster.attach(ClusterPaths.fromSystemProperties());
    c.network().link(host(args.get(0)), args.get(1).equals("up"));
    out.println(c.host(host(args.get(0))).name() + " link " + args.get(1));
    return 0;
  }

  private static int rate(List<String> args, PrintStream out) {
    if (args.size() != 2) {
      throw new IllegalArgumentException("usage: rate HOST RATE|none");
    }
    Cluster c = Cluster.attach(ClusterPaths.fromSystemProperties());
    int i = host(args.get(0));
    c.network().rate(i, args.get(1).equals("none") ? null : Rate.parse(args.get(1)));
    out.println(c.network().qdiscs(i));
    return 0;
  }

  private static int kill(List<String> args, PrintStream out) {
    if (args.size() != 1) {
      throw new IllegalArgumentException("usage: kill HOST");
    }
    Cluster c = Cluster.attach(ClusterPaths.fromSystemProperties());
    Host h = c.host(host(args.get(0)));
    List<Long> pids = new ArrayList<>(h.pids());
    h.killAll();
    out.println(h.name() + ": killed " + pids);
    return 0;
  }

  private static int restart(List<String> args, PrintStream out) {
    if (args.size() != 2) {
      throw new IllegalArgumentException("usage: restart HOST DAEMON");
    }
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
      throw new IllegalArgumentException("host=" + name + ": must be rs-hN or N");
    }
  }

  private static String value(List<String> args, int i) {
    if (i >= args.size()) {
      throw new IllegalArgumentException(args.get(i - 1) + " needs a value");
    }
    return args.get(i);
  }
}
