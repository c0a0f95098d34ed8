/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster;

import io.rdmashuffle.cluster.net.AddressPlan;
import io.rdmashuffle.cluster.net.Network;
import io.rdmashuffle.cluster.net.Ownership;
import io.rdmashuffle.cluster.net.Root;
import io.rdmashuffle.cluster.net.Teardown;
import io.rdmashuffle.cluster.spark.SparkStandalone;
import io.rdmashuffle.cluster.yarn.YarnCluster;
import io.rdmashuffle.tools.Progress;
import io.rdmashuffle.tools.ProgressCommand;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A cluster of hosts on this machine, each a network namespace (see {@link Network}), with the
 * daemons of the engines the {@link ClusterSpec} asks for. The one entry point of the harness:
 * {@link #start} builds it, {@link #close} removes all of it (processes, namespaces, links,
 * qdiscs), and so does a JVM shutdown hook when the JVM ends first (a failed or interrupted test).
 * The instance owns its hosts, daemons and the engines' handles.
 *
 * <p>Work folder {@code <work root>/<name>}: {@code hosts/rs-hN/} each host's local dirs, {@code
 * logs/rs-hN/} its daemons' logs, {@code logs/client/} the clients', {@code shared/} the file
 * system every host shares (a {@code file://} stand-in for HDFS), {@code state/} what {@code
 * integration/bin/cluster} needs to restart a daemon.
 */
public final class Cluster implements ClusterSite, AutoCloseable {
  private final ClusterSpec spec;
  private final ClusterPaths paths;
  private final Path work;
  private final List<Host> hosts = new ArrayList<>();
  private final Edge edge;
  private final Thread hook;
  private Network network;
  private SparkStandalone spark;
  private YarnCluster yarn;
  private boolean closed;

  private Cluster(ClusterSpec spec, ClusterPaths paths) {
    this.spec = spec;
    this.paths = paths;
    this.work = paths.workRoot().resolve(spec.name()).toAbsolutePath();
    AddressPlan plan = spec.plan();
    for (int i : plan.indexes()) {
      hosts.add(
          new Host(
              i,
              plan.hostName(i),
              plan.hostAddress(i),
              work.resolve("hosts").resolve(plan.hostName(i)),
              work.resolve("logs").resolve(plan.hostName(i)),
              spec.name()));
    }
    this.edge = new Edge(plan.clientAddress(), work.resolve("hosts.txt"), spec.name());
    this.hook = new Thread(this::closeQuietly, "cluster-teardown-" + spec.name());
  }

  /**
   * Builds the cluster and starts its daemons; everything it built is removed again when a step
   * fails.
   *
   * @throws IllegalStateException without root, or while another harness cluster runs here
   */
  public static Cluster start(ClusterSpec spec, ClusterPaths paths) {
    Root.require();
    long t0 = System.nanoTime();
    Cluster c = new Cluster(spec, paths);
    Ownership.claim(c.work); // removes the leftovers of a crashed run
    Runtime.getRuntime().addShutdownHook(c.hook);
    try {
      c.build();
    } catch (RuntimeException | Error e) {
      try {
        c.close();
      } catch (RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    System.out.printf(
        "cluster %s: %d hosts up in %.1f s (%s)%n",
        spec.name(), spec.hosts(), (System.nanoTime() - t0) / 1e9, c.work);
    return c;
  }

  private void build() {
    deleteTree(work);
    try {
      Files.createDirectories(work.resolve("shared"));
      Files.writeString(work.resolve("hosts.txt"), spec.plan().hostsFile());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    // a progress line per step (Spark or YARN take minutes on a loaded machine); the time left is
    // estimated from the last start's steps, kept beside the clusters' work folders
    List<String> steps = new ArrayList<>(List.of("network"));
    if (spec.spark()) {
      steps.add("spark");
    }
    if (spec.yarn()) {
      steps.add("yarn");
    }
    Path times = work.getParent().resolve("start-times.properties");
    Progress progress = Progress.onStderr(steps);
    ProgressCommand.times(times).forEach(progress::expect);
    long t = System.nanoTime();
    network = Network.create(spec.plan());
    if (spec.rate() != null) {
      for (Host h : hosts) {
        network.rate(h.index(), spec.rate());
      }
    }
    t = step(progress, "network", t, spec.hosts() + " hosts and their links");
    if (spec.spark()) {
      spark = SparkStandalone.start(this);
      t = step(progress, "spark", t, "Spark standalone: a Master and " + spec.hosts() + " Workers");
    }
    if (spec.yarn()) {
      yarn = YarnCluster.start(this);
      step(
          progress,
          "yarn",
          t,
          "YARN: ResourceManager, history server, " + spec.hosts() + " NodeManagers");
    }
    progress.finish();
    ProgressCommand.keepTimes(times, progress.lastSeconds());
    saveState();
  }

  private static long step(Progress progress, String key, long since, String what) {
    long now = System.nanoTime();
    progress.step(key, (now - since) / 1e9, "cluster start: " + what + " up");
    return now;
  }

  /** What {@code integration/bin/cluster} needs to find this cluster's hosts and daemons. */
  private void saveState() {
    Path state = work.resolve("state");
    try {
      Files.createDirectories(state);
      Files.writeString(
          state.resolve("cluster.properties"),
          "name=" + spec.name() + "\nhosts=" + spec.hosts() + "\nsubnet=" + spec.subnet() + "\n");
      for (Host h : hosts) {
        for (Daemon d : h.daemons()) {
          d.spec().save(state.resolve(h.name() + "." + d.name() + ".properties"));
          Files.writeString(
              state.resolve(h.name() + "." + d.name() + ".pid"), Long.toString(d.pid()));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The cluster another process started and left running ({@code cluster up}), rebuilt from its
   * saved state to apply faults to it: hosts, links, daemons (with their saved process ids).
   * Closing it removes the cluster.
   */
  public static Cluster attach(ClusterPaths paths) {
    Root.require();
    Ownership.Owner o =
        Ownership.owner()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "no harness cluster runs on this machine (`integration/bin/cluster up` starts one)"));
    Path state = Path.of(o.workDir()).resolve("state");
    if (!Files.exists(state.resolve("cluster.properties"))) {
      throw new IllegalStateException("the cluster of " + o + " is still starting (no state yet)");
    }
    java.util.Properties p = new java.util.Properties();
    try (java.io.Reader r = Files.newBufferedReader(state.resolve("cluster.properties"))) {
      p.load(r);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the state of " + o, e);
    }
    ClusterSpec spec =
        ClusterSpec.builder(p.getProperty("name"))
            .hosts(Integer.parseInt(p.getProperty("hosts")))
            .subnet(p.getProperty("subnet"))
            .build();
    Cluster c = new Cluster(spec, paths.withWorkRoot(Path.of(o.workDir()).getParent()));
    c.network = Network.attach(spec.plan());
    for (Host h : c.hosts) {
      try (java.util.stream.Stream<Path> files = Files.list(state)) {
        for (Path f :
            files
                .filter(
                    f ->
                        f.getFileName().toString().startsWith(h.name() + ".")
                            && f.getFileName().toString().endsWith(".properties"))
                .sorted()
                .toList()) {
          ProcessSpec ps = ProcessSpec.load(f);
          Path pidFile = state.resolve(h.name() + "." + ps.name() + ".pid");
          long pid = Files.exists(pidFile) ? Long.parseLong(Files.readString(pidFile).trim()) : -1;
          h.adopt(new Daemon(h, ps, spec.name(), pid));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return c;
  }

  /** Restarts daemon {@code name} of host {@code i} (the "restart one daemon" fault). */
  public Daemon restart(int i, String name, long graceMillis) {
    Daemon d =
        host(i)
            .daemon(name)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "daemon="
                            + name
                            + ": host "
                            + host(i).name()
                            + " runs "
                            + host(i).daemons()));
    d.restart(graceMillis);
    saveState();
    return d;
  }

  @Override
  public ClusterSpec spec() {
    return spec;
  }

  @Override
  public ClusterPaths paths() {
    return paths;
  }

  @Override
  public Path work() {
    return work;
  }

  @Override
  public Path shared() {
    return work.resolve("shared");
  }

  @Override
  public List<Host> hosts() {
    return List.copyOf(hosts);
  }

  @Override
  public Host host(int i) {
    return hosts.get(i - 1);
  }

  @Override
  public Edge edge() {
    return edge;
  }

  public Network network() {
    return network;
  }

  /** The Spark standalone cluster; throws when the spec asked for none. */
  public SparkStandalone spark() {
    if (spark == null) {
      throw new IllegalStateException("cluster " + spec.name() + " runs no Spark standalone");
    }
    return spark;
  }

  /** The YARN cluster; throws when the spec asked for none. */
  public YarnCluster yarn() {
    if (yarn == null) {
      throw new IllegalStateException("cluster " + spec.name() + " runs no YARN");
    }
    return yarn;
  }

  /** The "link down" fault: host {@code i}'s cable pulled. */
  public void linkDown(int i) {
    network.link(i, false);
  }

  public void linkUp(int i) {
    network.link(i, true);
  }

  /** The "host dies" fault: every process of host {@code i} killed. */
  public void killHost(int i) {
    host(i).killAll();
  }

  /**
   * Leaves the cluster running after this JVM ends ({@code cluster up}): the shutdown hook is
   * dropped and the owner file says so; {@code cluster down} removes it.
   */
  public void detach() {
    Runtime.getRuntime().removeShutdownHook(hook);
    Ownership.detach();
    closed = true;
  }

  /** Removes everything of the cluster: processes, namespaces, links, qdiscs. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // the JVM is shutting down: this is the hook
    }
    long t0 = System.nanoTime();
    try {
      Teardown.all();
    } finally {
      Ownership.release();
    }
    System.out.printf(
        "cluster %s: torn down in %.1f s%n", spec.name(), (System.nanoTime() - t0) / 1e9);
  }

  private void closeQuietly() {
    try {
      close();
    } catch (RuntimeException e) {
      System.err.println("cluster " + spec.name() + ": tear-down failed: " + e);
    }
  }

  static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + dir, e);
    }
  }
}
