/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.yarn;

import io.rdmashuffle.cluster.ClusterSite;
import io.rdmashuffle.cluster.Host;
import io.rdmashuffle.cluster.net.Shell;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The cluster's multi-user mode, as operators run YARN: every NodeManager runs as the non-root user
 * {@value #NM_USER} (group {@value #NM_GROUP}), and containers run as their job's user through
 * Hadoop's own {@code LinuxContainerExecutor} (non-secure mode, containers as the submitting user),
 * so map outputs belong to the job's user, in directories of mode 2750 and group {@value
 * #NM_GROUP}: the NodeManager reads them, no other user can. Jobs and applications are submitted by
 * one of the job users ({@value #ALICE}, {@value #BOB}), their clients run as that user.
 *
 * <p>The container-executor: Hadoop's is C in Hadoop's source release, which neither Maven Central
 * nor Debian has (this machine and CI reach nothing else), so the harness builds its own (resources
 * {@code multiuser/container-executor.c}, a setuid-root program the NodeManager's group may run,
 * and {@code container-executor.sh}, what it runs as root): the same command line as Hadoop's, for
 * the default runtime (no cgroups, no Docker), with Hadoop's directory modes and owners and its
 * umask 0027 for localizers and containers, and setpriv(1) to become the user.
 *
 * <p>Users and groups are created once per machine ({@code useradd --system}) and kept.
 */
public final class MultiUser {
  public static final String NM_USER = "yarn";
  public static final String NM_GROUP = "hadoop";
  public static final String ALICE = "rs-alice";
  public static final String BOB = "rs-bob";
  public static final List<String> JOB_USERS = List.of(ALICE, BOB);

  private static final String RESOURCES = "/io/rdmashuffle/cluster/multiuser/";

  private MultiUser() {}

  /** {@code argv} run as {@code user} (its own group and supplementary groups). */
  public static List<String> as(String user, List<String> argv) {
    List<String> c =
        new ArrayList<>(
            List.of(
                "setpriv",
                "--reuid=" + user,
                "--regid=" + Shell.run("id", "-g", user).strip(),
                "--init-groups",
                "--"));
    c.addAll(argv);
    return c;
  }

  /**
   * Users, groups and the container-executor; the cluster's shared folders writable by every user
   * (sticky, as /tmp). Returns the container-executor's path.
   */
  static Path prepare(ClusterSite c) {
    ensureUsers();
    Path dir = c.work().resolve("multiuser");
    try {
      Files.createDirectories(dir);
      Path script = dir.resolve("container-executor.sh");
      Path source = dir.resolve("container-executor.c");
      copy("container-executor.sh", script);
      copy("container-executor.c", source);
      Path conf = dir.resolve("container-executor.cfg");
      Files.writeString(
          conf,
          "nm.group="
              + NM_GROUP
              + "\nusers="
              + String.join(" ", JOB_USERS)
              + "\ndirs="
              + c.work().resolve("hosts")
              + "\n");
      Path exe = dir.resolve("container-executor");
      Shell.run(
          "cc",
          "-O2",
          "-Wall",
          "-Werror",
          "-DSCRIPT=\"" + script + "\"",
          "-DCONF=\"" + conf + "\"",
          "-DNM_GROUP=\"" + NM_GROUP + "\"",
          "-o",
          exe.toString(),
          source.toString());
      Shell.run("chown", "root:" + NM_GROUP, exe.toString());
      Shell.run("chmod", "6050", exe.toString());
      for (String shared :
          List.of(
              "shared",
              "shared/staging",
              "shared/out",
              "shared/history",
              "shared/spark-staging",
              "client",
              "client/tmp",
              "client/reports",
              "logs/client")) {
        Path p = Files.createDirectories(c.work().resolve(shared));
        Shell.run("chmod", "1777", p.toString());
      }
      return exe;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot set up the multi-user mode in " + dir, e);
    }
  }

  /** The NodeManager's own dirs of a host, its user's. */
  static void ownNodeManagerDirs(Host h) {
    for (String d : List.of("nm-local", "nm-logs", "hadoop-tmp")) {
      Path p = h.dir(d);
      Shell.run("chown", "-R", NM_USER + ":" + NM_GROUP, p.toString());
      Shell.run("chmod", "0755", p.toString());
    }
  }

  /** yarn-site.xml of the multi-user mode: LinuxContainerExecutor, containers as their user. */
  static Map<String, String> yarnSite(Path executor) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put(
        "yarn.nodemanager.container-executor.class",
        "org.apache.hadoop.yarn.server.nodemanager.LinuxContainerExecutor");
    m.put("yarn.nodemanager.linux-container-executor.path", executor.toString());
    m.put("yarn.nodemanager.linux-container-executor.group", NM_GROUP);
    // without Kerberos: run each container as the user who submitted it, not one local user
    m.put("yarn.nodemanager.linux-container-executor.nonsecure-mode.limit-users", "false");
    return m;
  }

  private static void ensureUsers() {
    if (!Shell.exec("getent", "group", NM_GROUP).ok()) {
      Shell.run("groupadd", "--system", NM_GROUP);
    }
    if (!Shell.exec("getent", "passwd", NM_USER).ok()) {
      Shell.run(
          "useradd",
          "--system",
          "--gid",
          NM_GROUP,
          "--no-create-home",
          "--home-dir",
          "/nonexistent",
          "--shell",
          "/usr/sbin/nologin",
          NM_USER);
    } else if (!Shell.run("id", "-nG", NM_USER).contains(NM_GROUP)) {
      Shell.run("usermod", "-aG", NM_GROUP, NM_USER);
    }
    for (String u : JOB_USERS) {
      if (!Shell.exec("getent", "passwd", u).ok()) {
        Shell.run(
            "useradd",
            "--system",
            "--user-group",
            "--no-create-home",
            "--home-dir",
            "/nonexistent",
            "--shell",
            "/usr/sbin/nologin",
            u);
      }
      if (Shell.run("id", "-nG", u).contains(NM_GROUP)) {
        throw new IllegalStateException(
            u + " is in group " + NM_GROUP + ": it could read every user's map outputs");
      }
    }
  }

  private static void copy(String resource, Path to) throws IOException {
    try (InputStream in = MultiUser.class.getResourceAsStream(RESOURCES + resource)) {
      if (in == null) {
        throw new IOException("no resource " + RESOURCES + resource);
      }
      Files.write(to, in.readAllBytes());
    }
    Files.setPosixFilePermissions(to, PosixFilePermissions.fromString("rwxr-xr-x"));
  }
}
