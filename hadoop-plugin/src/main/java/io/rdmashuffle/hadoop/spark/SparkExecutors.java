/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.spark;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Spark applications a NodeManager's Spark service serves and the executors they registered
 * (Spark's {@code ExecutorShuffleInfo}: local dirs and sub-dirs per local dir), checked on the way
 * in: its application must have been started here (so its user is known), and every local dir of
 * the executor must lie below one of the NodeManager's local dirs, in that user's folder of its
 * application, {@code usercache/<user>/appcache/<application>/}. The map outputs of an executor are
 * found there, opened relative to that NodeManager local dir ({@link SparkMapOutputs}).
 *
 * <p>Kept in a {@link SparkServiceState} when the NodeManager recovers, so reducers keep READing
 * after a NodeManager restart. Thread-safe.
 */
final class SparkExecutors {
  /** An application the service was told about: its user and Spark's secret (null: none). */
  record Application(String id, String user, String sparkSecret) {}

  /**
   * One registered executor; each local dir split into the NodeManager local dir it lies below
   * ({@code roots}) and the path components from there ({@code below}).
   */
  record Executor(
      String application,
      String id,
      String[] localDirs,
      int subDirsPerLocalDir,
      Path[] roots,
      List<List<String>> below) {}

  private final List<Path> nodeLocalDirs;
  private final SparkServiceState state;
  // guarded by this; insertion order: executors are searched in the order they registered
  private final Map<String, Application> applications = new LinkedHashMap<>();
  private final Map<String, Map<String, Executor>> executors = new LinkedHashMap<>();

  /**
   * @param nodeLocalDirs the NodeManager's local dirs ({@code yarn.nodemanager.local-dirs})
   * @param state where to keep what is registered across restarts; null: nowhere
   */
  SparkExecutors(List<Path> nodeLocalDirs, SparkServiceState state) {
    this.nodeLocalDirs = nodeLocalDirs.stream().map(p -> p.toAbsolutePath().normalize()).toList();
    this.state = state;
  }

  /** Reloads what {@link SparkServiceState} kept; returns the applications reloaded. */
  synchronized List<Application> recover() {
    if (state == null) {
      return List.of();
    }
    SparkServiceState.Content c = state.load();
    for (Application a : c.applications()) {
      applications.put(a.id(), a);
    }
    // executors only of applications recovered: their users are known
    for (SparkServiceState.ExecutorRecord e : c.executors()) {
      try {
        put(e.application(), e.executor(), e.localDirs(), e.subDirsPerLocalDir());
      } catch (IllegalArgumentException bad) {
        // the NodeManager's local dirs changed since: that executor's outputs are out of reach
      }
    }
    return List.copyOf(applications.values());
  }

  synchronized void addApplication(Application a) {
    applications.put(a.id(), a);
    if (state != null) {
      state.applicationAdded(a);
    }
  }

  synchronized Application application(String id) {
    return applications.get(id);
  }

  /** Forgets an application and its executors. */
  synchronized void removeApplication(String id) {
    applications.remove(id);
    executors.remove(id);
    if (state != null) {
      state.applicationRemoved(id);
      state.compactIfWorth(this::content, applications.size() + size());
    }
  }

  /**
   * Registers (or registers again) an executor.
   *
   * @throws IllegalArgumentException when a local dir lies outside the application's folders
   */
  synchronized void register(
      String application, String executor, String[] localDirs, int subDirsPerLocalDir) {
    Executor e = put(application, executor, localDirs, subDirsPerLocalDir);
    if (state != null) {
      state.executorRegistered(record(e));
      state.compactIfWorth(this::content, applications.size() + size());
    }
  }

  private Executor put(String application, String executor, String[] localDirs, int subDirs) {
    Application app = applications.get(application);
    if (app == null || app.user() == null) {
      // its folders' user can't be checked: the NodeManager never named the application's user
      throw new IllegalArgumentException(
          "executor "
              + executor
              + " of "
              + application
              + ": that application was not started on this node (no container of it), or its"
              + " user is unknown");
    }
    if (localDirs == null || localDirs.length == 0 || subDirs < 1) {
      throw new IllegalArgumentException(
          "executor "
              + executor
              + " of "
              + application
              + ": no local dirs, or subDirsPerLocalDir="
              + subDirs);
    }
    Path[] roots = new Path[localDirs.length];
    List<List<String>> below = new ArrayList<>();
    for (int i = 0; i < localDirs.length; i++) {
      Path dir = Path.of(localDirs[i]);
      if (!dir.isAbsolute() || !dir.normalize().equals(dir)) {
        throw new IllegalArgumentException(
            "executor "
                + executor
                + " of "
                + application
                + ": local dir "
                + localDirs[i]
                + " is not an absolute, normalized path");
      }
      Path root = rootOf(dir);
      if (root == null) {
        throw new IllegalArgumentException(
            "executor "
                + executor
                + " of "
                + application
                + ": local dir "
                + localDirs[i]
                + " is not below a NodeManager local dir "
                + nodeLocalDirs);
      }
      List<String> parts = new ArrayList<>();
      root.relativize(dir).forEach(p -> parts.add(p.toString()));
      if (parts.size() < 5
          || !parts.get(0).equals("usercache")
          || !parts.get(2).equals("appcache")
          || !parts.get(3).equals(application)
          || !parts.get(1).equals(app.user())) {
        throw new IllegalArgumentException(
            "executor "
                + executor
                + " of "
                + application
                + ": local dir "
                + localDirs[i]
                + " is not in the application's folder "
                + root
                + "/usercache/"
                + app.user()
                + "/appcache/"
                + application
                + "/");
      }
      roots[i] = root;
      below.add(List.copyOf(parts));
    }
    Executor e =
        new Executor(application, executor, localDirs.clone(), subDirs, roots, List.copyOf(below));
    executors.computeIfAbsent(application, a -> new LinkedHashMap<>()).put(executor, e);
    return e;
  }

  private Path rootOf(Path dir) {
    for (Path root : nodeLocalDirs) {
      if (dir.startsWith(root) && !dir.equals(root)) {
        return root;
      }
    }
    return null;
  }

  /** The executors {@code application} registered here, in the order they registered. */
  synchronized List<Executor> executorsOf(String application) {
    Map<String, Executor> m = executors.get(application);
    return m == null ? List.of() : List.copyOf(m.values());
  }

  synchronized int size() {
    int n = 0;
    for (Map<String, Executor> m : executors.values()) {
      n += m.size();
    }
    return n;
  }

  private static SparkServiceState.ExecutorRecord record(Executor e) {
    return new SparkServiceState.ExecutorRecord(
        e.application(), e.id(), e.localDirs(), e.subDirsPerLocalDir());
  }

  /** Everything live, for a rewrite of the state file; under this lock. */
  private SparkServiceState.Content content() {
    List<SparkServiceState.ExecutorRecord> all = new ArrayList<>();
    for (Map<String, Executor> m : executors.values()) {
      for (Executor e : m.values()) {
        all.add(record(e));
      }
    }
    return new SparkServiceState.Content(List.copyOf(applications.values()), all);
  }
}
