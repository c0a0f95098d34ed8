/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster;

import io.rdmashuffle.cluster.net.Shell;
import io.rdmashuffle.cluster.net.Teardown;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One host of the cluster: a network namespace with its own address, its own host name (a UTS
 * namespace per process tree, named like the namespace) and {@code /etc/hosts}, its own local
 * directories under the cluster's work dir, and the processes started in it. Owned by its {@link
 * Cluster}.
 */
public final class Host implements Place {
  /** Sets the UTS namespace's host name to $0, then runs the command. */
  private static final String BECOME = "echo \"$0\" > /proc/sys/kernel/hostname && exec \"$@\"";

  private final int index;
  private final String name;
  private final String address;
  private final Path dir;
  private final Path logs;
  private final String clusterName;
  private final List<Daemon> daemons = new CopyOnWriteArrayList<>();

  Host(int index, String name, String address, Path dir, Path logs, String clusterName) {
    this.index = index;
    this.name = name;
    this.address = address;
    this.dir = dir;
    this.logs = logs;
    this.clusterName = clusterName;
  }

  public int index() {
    return index;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String address() {
    return address;
  }

  /** This host's own directories (local dirs, work dirs, configuration). */
  public Path dir(String child) {
    Path p = dir.resolve(child);
    try {
      Files.createDirectories(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return p;
  }

  /** Where this host's daemons write their logs. */
  public Path log(String daemon) {
    return logs.resolve(daemon + ".log");
  }

  @Override
  public List<String> wrap(List<String> argv) {
    List<String> c =
        new ArrayList<>(
            List.of("ip", "netns", "exec", name, "unshare", "--uts", "sh", "-c", BECOME, name));
    c.addAll(argv);
    return c;
  }

  /** Starts a daemon here. */
  public Daemon start(ProcessSpec spec) {
    Daemon d = new Daemon(this, spec, clusterName);
    d.start();
    daemons.add(d);
    return d;
  }

  /** A daemon another process started here (see {@link Cluster#attach}). */
  void adopt(Daemon d) {
    daemons.add(d);
  }

  /** The daemons started here, in order. */
  public List<Daemon> daemons() {
    return List.copyOf(daemons);
  }

  public Optional<Daemon> daemon(String name) {
    return daemons.stream().filter(d -> d.name().equals(name)).findFirst();
  }

  /** Runs a command here to completion (at most {@code timeoutSeconds}). */
  public Shell.Result exec(List<String> argv, long timeoutSeconds) {
    return Shell.exec(wrap(argv), timeoutSeconds);
  }

  /** Every process in this host now. */
  public List<Long> pids() {
    return Teardown.pids(name);
  }

  /** The "host dies" fault: SIGKILL to every process of the host, until none is left. */
  public void killAll() {
    Teardown.kill(this::pids, 0);
  }

  @Override
  public String toString() {
    return name + " " + address;
  }
}
