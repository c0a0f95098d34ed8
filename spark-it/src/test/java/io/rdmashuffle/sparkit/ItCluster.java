/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.sparkit;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.shuffle.ShuffleManager;
import org.apache.spark.shuffle.rdma.RdmaShuffleManager;
import org.apache.spark.sql.SparkSession;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Spark applications for the multi-process tests: {@code local-cluster[2,1,1024]} (two executor
 * processes, launched from the fabricated Spark home of the Spark version under test, with the
 * plugin jar on their class path), and probes that ask every executor about itself.
 */
public final class ItCluster {
  public static final String MANAGER = "org.apache.spark.shuffle.rdma.RdmaShuffleManager";
  public static final int EXECUTORS = 2;

  private ItCluster() {}

  static String property(String name) {
    String v = System.getProperty(name);
    if (v == null) {
      throw new IllegalStateException(
          "system property "
              + name
              + " is not set (run through"
              + " Maven: mvn -pl spark-it -am verify)");
    }
    return v;
  }

  static Path workDir(String name) {
    Path p = Paths.get(property("rdma.it.workDir"), name + "-" + System.nanoTime());
    try {
      Files.createDirectories(p);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return p;
  }

  /** Settings every test application shares; SQL settings make AQE split and coalesce. */
  static SparkConf base(String name, Path work) {
    return new SparkConf()
        .setAppName(name)
        .set("spark.ui.enabled", "false")
        .set("spark.local.dir", work.resolve("local").toString())
        .set("spark.sql.shuffle.partitions", "16")
        .set("spark.sql.adaptive.enabled", "true")
        .set("spark.sql.adaptive.coalescePartitions.enabled", "true")
        .set("spark.sql.adaptive.advisoryPartitionSizeInBytes", "16k")
        .set("spark.sql.adaptive.coalescePartitions.minPartitionSize", "1k")
        .set("spark.sql.adaptive.skewJoin.enabled", "true")
        .set("spark.sql.adaptive.skewJoin.skewedPartitionFactor", "2")
        .set("spark.sql.adaptive.skewJoin.skewedPartitionThresholdInBytes", "8k")
        .set("spark.sql.adaptive.localShuffleReader.enabled", "true")
        .set("spark.task.maxFailures", "4")
        .set("spark.stage.maxConsecutiveAttempts", "8");
  }

  /** The stock sort shuffle in one process: the reference every result is compared with. */
  static SparkConf reference(String name, Path work) {
    return base(name, work).setMaster("local[2]");
  }

  /** Our shuffle in two executor processes on this machine. */
  static SparkConf localCluster(String name, Path work) {
    return localCluster(name, work, EXECUTORS, 1);
  }

  /**
   * Our shuffle in {@code executors} executor processes of {@code cores} cores each. As in a
   * standalone cluster, {@code spark.executor.cores} stays unset: each executor takes its worker's
   * cores.
   */
  static SparkConf localCluster(String name, Path work, int executors, int cores) {
    String cp =
        property("rdma.it.pluginJar") + File.pathSeparator + property("rdma.it.testClasses");
    return base(name, work)
        .setMaster("local-cluster[" + executors + "," + cores + ",1024]")
        .set("spark.shuffle.manager", MANAGER)
        .set("spark.executor.extraClassPath", cp)
        .set("spark.executor.memory", "1024m")
        // keep executor logs where a failing test can point at them
        .set("spark.worker.cleanup.enabled", "false");
  }

  /** Starts the application; for local-cluster, waits until every executor registered. */
  static SparkSession start(SparkConf conf) {
    SparkSession s = SparkSession.builder().config(conf).getOrCreate();
    String master = conf.get("spark.master");
    if (master.startsWith("local-cluster")) {
      int executors =
          Integer.parseInt(master.substring(master.indexOf('[') + 1, master.indexOf(',')).trim());
      // an emulated machine (the Soft-RoCE guest) needs longer: rdma.it.executorWaitSeconds
      long waitSeconds = Long.getLong("rdma.it.executorWaitSeconds", 180);
      long deadline = System.currentTimeMillis() + waitSeconds * 1000;
      while (s.sparkContext().getExecutorIds().size() < executors) {
        if (System.currentTimeMillis() > deadline) {
          String logs;
          try {
            logs =
                executorLogs(s.sparkContext().applicationId()).stream()
                    .limit(1)
                    .map(ItCluster::tail)
                    .collect(Collectors.joining("\n"));
          } catch (IOException e) {
            logs = e.toString();
          }
          s.stop();
          throw new IllegalStateException(
              "executors did not register within "
                  + waitSeconds
                  + " s; an"
                  + " executor's log ends with:\n"
                  + logs);
        }
        try {
          Thread.sleep(200);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
    }
    return s;
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      return log
          + ":\n"
          + String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    } catch (IOException e) {
      return log + ": " + e;
    }
  }

  static JavaSparkContext jsc(SparkSession s) {
    return JavaSparkContext.fromSparkContext(s.sparkContext());
  }

  /** What one executor reports about itself (see {@link #probe}). */
  public static Map<String, Long> probeHere() {
    Map<String, Long> m = new LinkedHashMap<>();
    ShuffleManager sm = SparkEnv.get().shuffleManager();
    if (sm instanceof RdmaShuffleManager r) {
      m.putAll(r.metricsSnapshot());
      m.put("transportUnavailable", r.unavailableCause() == null ? 0L : 1L);
    }
    m.put("shuffleMappings", countLines(Paths.get("/proc/self/maps"), "/shuffle_"));
    m.put("shuffleFds", shuffleFds());
    File[] fds = new File("/proc/self/fd").listFiles();
    m.put("fds", fds == null ? -1L : fds.length);
    m.put("pid", ProcessHandle.current().pid());
    m.put("maxOpenFiles", maxOpenFiles());
    return m;
  }

  /** This process's soft open-file limit (-1: unknown or unlimited). */
  private static long maxOpenFiles() {
    try (Stream<String> lines = Files.lines(Paths.get("/proc/self/limits"))) {
      return lines
          .filter(l -> l.startsWith("Max open files"))
          .findFirst()
          .map(l -> l.substring("Max open files".length()).trim().split("\\s+")[0])
          .filter(v -> v.chars().allMatch(Character::isDigit))
          .map(Long::parseLong)
          .orElse(-1L);
    } catch (IOException e) {
      return -1;
    }
  }

  private static long countLines(Path p, String needle) {
    try (Stream<String> lines = Files.lines(p)) {
      return lines.filter(l -> l.contains(needle)).count();
    } catch (IOException e) {
      return -1;
    }
  }

  private static long shuffleFds() {
    File[] fds = new File("/proc/self/fd").listFiles();
    long n = 0;
    if (fds != null) {
      for (File f : fds) {
        try {
          if (Files.readSymbolicLink(f.toPath()).toString().contains("/shuffle_")) {
            n++;
          }
        } catch (IOException | UnsupportedOperationException e) {
          // closed meanwhile
        }
      }
    }
    return n;
  }

  /** Asks every executor {@link #probeHere()}; executor id to report. */
  static Map<String, Map<String, Long>> probe(JavaSparkContext sc) {
    List<String> ids = new ArrayList<>(CollectionConverters.asJava(sc.sc().getExecutorIds()));
    Map<String, Map<String, Long>> out = new TreeMap<>();
    for (int attempt = 0; attempt < 20 && out.keySet().size() < ids.size(); attempt++) {
      int tasks = 8 * Math.max(1, ids.size());
      List<Integer> seeds = IntStream.range(0, tasks).boxed().collect(Collectors.toList());
      List<Map<String, Object>> reports =
          sc.parallelize(seeds, tasks)
              .mapPartitions(
                  (Iterator<Integer> it) -> {
                    Thread.sleep(100);
                    Map<String, Object> r = new HashMap<>(probeHere());
                    r.put("executor", SparkEnv.get().executorId());
                    return List.of(r).iterator();
                  })
              .collect();
      for (Map<String, Object> r : reports) {
        Map<String, Long> values = new LinkedHashMap<>();
        r.forEach(
            (k, v) -> {
              if (v instanceof Long l) {
                values.put(k, l);
              }
            });
        out.put((String) r.get("executor"), values);
      }
    }
    if (!out.keySet().containsAll(ids)) {
      throw new IllegalStateException(
          "executors " + ids + " but only " + out.keySet() + " answered");
    }
    return out;
  }

  /** The sum of one counter over every executor. */
  static long total(Map<String, Map<String, Long>> probes, String key) {
    return probes.values().stream().mapToLong(m -> m.getOrDefault(key, 0L)).sum();
  }

  /** Where local-cluster keeps an application's executor logs. */
  static List<Path> executorLogs(String appId) throws IOException {
    Path app = Paths.get(property("rdma.it.sparkHome"), "work", appId);
    if (!Files.isDirectory(app)) {
      return List.of();
    }
    try (Stream<Path> s = Files.walk(app)) {
      return s.filter(p -> p.getFileName().toString().equals("stderr")).toList();
    }
  }
}
