/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.cluster.spark.SparkApplication;
import io.rdmashuffle.cluster.yarn.JobReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Spark on YARN with dynamic allocation, as the README's section tells operators to set it up:
 * every NodeManager runs rdma-shuffle's Spark service as {@code spark_shuffle} (the plugin jar on
 * its class path, two yarn-site.xml properties), applications set {@code
 * spark.shuffle.service.enabled} and dynamic allocation with a short idle timeout, and, as a
 * secured cluster runs it, {@code spark.authenticate} on both sides (every application's own
 * secret, which YARN hands the services and NodeManager recovery keeps). The application shuffles,
 * waits until every executor was removed, and reads the shuffle again on new executors: with
 * rdma-shuffle the map outputs are then served by the node services alone (their locate answers
 * counted in the NodeManagers' logs, none by a fallback), and both runs' results equal those of the
 * stock shuffle, which Spark's own handler in the same service serves. Then the same with every
 * NodeManager restarted (recovery on) while the application has no executors: the restarted
 * services recovered the application and its executors and serve the second read. Last, a MapReduce
 * sort on rdma-shuffle runs while the application runs, on the same NodeManagers: both services
 * serve READs, and after both ended neither keeps anything of them.
 */
@Timeout(1800)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SparkDynamicAllocationIT {
  static final String APP = "io.rdmashuffle.cluster.apps.ShuffleAfterExecutorsLeftApp";
  static final String SERVICE = "io.rdmashuffle.hadoop.spark.SparkShuffleService";
  static final String GROUP = "rdma-shuffle";
  static Cluster cluster;

  /** The stock shuffle's result. */
  static List<String> expected;

  @BeforeAll
  static void start() throws InterruptedException {
    ClusterTesting.assumeRoot();
    cluster =
        ClusterTesting.startWhenFree(
            ClusterSpec.builder("yarn-dynalloc")
                .hosts(3)
                .yarn()
                .yarnSite("yarn.nodemanager.aux-services", "mapreduce_shuffle,spark_shuffle")
                .yarnSite("yarn.nodemanager.aux-services.spark_shuffle.class", SERVICE)
                .yarnSite("spark.shuffle.rdma.transport", "tcp")
                // as a secured cluster runs it: Spark's handler and our READs authenticate each
                // application with Spark's secret for it (which YARN hands the service, and which
                // recovery keeps)
                .yarnSite("spark.authenticate", "true")
                // NodeManager recovery: restarted NodeManagers keep their containers and
                // applications
                .yarnSite("yarn.nodemanager.recovery.enabled", "true")
                .yarnSite("yarn.nodemanager.recovery.supervised", "true")
                .build());
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static SparkApplication app(String name, Path out) throws IOException {
    return ClusterTesting.withExecutorMetrics(
            cluster.yarn().sparkApplication(name, APP), out.resolve("metrics"))
        .conf("spark.shuffle.service.enabled", "true")
        .conf("spark.authenticate", "true")
        .conf("spark.dynamicAllocation.enabled", "true")
        .conf("spark.dynamicAllocation.minExecutors", "0")
        .conf("spark.dynamicAllocation.initialExecutors", "2")
        .conf("spark.dynamicAllocation.maxExecutors", "2")
        .conf("spark.dynamicAllocation.executorIdleTimeout", "3s")
        .conf("spark.dynamicAllocation.schedulerBacklogTimeout", "1s")
        .conf("spark.executor.memory", "512m")
        .conf("spark.executor.cores", "2")
        .conf("spark.ui.enabled", "false")
        .args(out.toString());
  }

  @Test
  @Order(1)
  void theReduceStageAfterItsMapExecutorsLeftReadsFromTheNodeServices() throws Exception {
    for (int i = 1; i <= cluster.spec().hosts(); i++) {
      assertTrue(
          sinceLastStart(cluster.yarn().nodeManager(i)).contains("(authentication on)"),
          "rs-h" + i + ": the Spark service does not authenticate applications");
    }
    Path stockOut = cluster.shared().resolve("dynalloc-stock");
    SparkApplication.Outcome stock = app("dynalloc-stock", stockOut).run(900);
    assertTrue(stock.ok(), "stock run failed: " + stock.tail());
    expected = Files.readAllLines(stockOut.resolve("first.txt"));
    assertTrue(expected.size() > 10_000, "stock result has " + expected.size() + " rows");
    assertEquals(expected, Files.readAllLines(stockOut.resolve("second.txt")));
    long locatedBefore = located();
    assertEquals(0, locatedBefore, "the stock run located map outputs at the node services");

    Path oursOut = cluster.shared().resolve("dynalloc-ours");
    SparkApplication.Outcome ours =
        app("dynalloc-ours", oursOut)
            .withRdmaShuffle()
            .conf("spark.shuffle.rdma.transport", "tcp")
            .run(900);
    assertTrue(ours.ok(), "rdma-shuffle run failed: " + ours.tail());
    System.out.printf(
        "dynamic allocation: stock %.1f s, ours %.1f s%n", stock.seconds(), ours.seconds());
    checkReadFromTheNodeServices(oursOut, locatedBefore);
  }

  // full tier: the ci tier has a NodeManager's restart in YarnClusterIT and, with MapReduce,
  // hadoop-plugin's NodeManagerRestartTest
  @Test
  @Order(2)
  @EnabledIfSystemProperty(named = "rdmashuffle.tier", matches = "full")
  void restartedNodeManagersRecoverTheApplicationAndItsExecutors() throws Exception {
    assertNotNull(expected, "the first test ran the stock shuffle");
    Path out = cluster.shared().resolve("dynalloc-recovery");
    SparkApplication a =
        app("dynalloc-recovery", out)
            .withRdmaShuffle()
            .conf("spark.shuffle.rdma.transport", "tcp")
            .args("pause");
    java.util.concurrent.CompletableFuture<SparkApplication.Outcome> run =
        java.util.concurrent.CompletableFuture.supplyAsync(() -> a.run(900));
    Probes.await(
        "the application's pause (every executor gone)",
        600,
        () -> Files.exists(out.resolve("paused")) || run.isDone(),
        List.of());
    assertFalse(run.isDone(), () -> "the application ended before its pause: " + run.join().tail());
    for (int i = 1; i <= cluster.spec().hosts(); i++) {
      Daemon nm = cluster.restart(i, "nodemanager", 10_000);
      // the new process's service start and registration (its log since the restart)
      Probes.await(
          "rs-h" + i + "'s restarted NodeManager",
          180,
          () -> {
            String log = sinceLastStart(nm);
            return RECOVERED.matcher(log).find()
                && log.contains("Registered with ResourceManager as rs-h");
          },
          List.of(nm));
    }
    long locatedBefore = located();
    int recovered = 0;
    for (int i = 1; i <= cluster.spec().hosts(); i++) {
      Matcher mt = RECOVERED.matcher(sinceLastStart(cluster.yarn().nodeManager(i)));
      assertTrue(mt.find(), "rs-h" + i + ": the Spark service did not start again");
      recovered += Integer.parseInt(mt.group(1));
    }
    assertTrue(recovered > 0, "no NodeManager recovered an executor");
    Files.writeString(out.resolve("resume"), "");
    SparkApplication.Outcome o = run.get();
    assertTrue(o.ok(), "rdma-shuffle run with restarted NodeManagers failed: " + o.tail());
    checkReadFromTheNodeServices(out, locatedBefore);
  }

  /**
   * Both engines on the same NodeManagers at once: a MapReduce sort (rdma-shuffle's consumer, the
   * service {@code mapreduce_shuffle}) and the dynamic allocation application (the service {@code
   * spark_shuffle}) run at the same time; each result equals its stock shuffle's, containers of
   * both ran on one host at least, both services served READs (one NodeManager at least READs of
   * both), and once both ended each service's last words are that nothing of theirs is admitted or
   * registered any more. The sort starts once the application's executors run, and the application
   * holds at its pause (executors gone, its outputs registered at the Spark services) until the
   * sort ended: the overlap is by construction, not by the two durations (a fast sort on a quiet
   * machine outlived an unpaused application once).
   */
  // full tier: the ci tier runs both engines on the same NodeManagers one after
  // the other (MultiUserClusterIT); at once costs 2 to 4 minutes more
  @EnabledIfSystemProperty(named = "rdmashuffle.tier", matches = "full")
  @Test
  @Order(3)
  void mapReduceAndSparkAtOnceOnTheSameNodeManagersUseBothServices() throws Exception {
    assertNotNull(expected, "the first test ran the stock shuffle");
    Path input = MapReduceJobsIT.lines(cluster.shared().resolve("in/sort"), 6, 6_000, 1);
    JobReport stock =
        cluster.yarn().job("both-sort-stock", "sort").input(input).reducers(3).run(600);
    assertTrue(stock.succeeded(), stock.describe());
    Map<String, Map<String, Long>> before = serviceEnds();

    Path out = cluster.shared().resolve("both-spark");
    SparkApplication spark =
        app("both-spark", out)
            .withRdmaShuffle()
            .conf("spark.shuffle.rdma.transport", "tcp")
            .args("pause");
    long t0 = System.nanoTime();
    CompletableFuture<SparkApplication.Outcome> s =
        CompletableFuture.supplyAsync(() -> spark.run(900));
    // the MapReduce job once the application's executors run
    Probes.await(
        "the Spark application's executors",
        300,
        () -> s.isDone() || metricsFiles(out.resolve("metrics")) > 0,
        List.of());
    assertFalse(s.isDone(), () -> "the Spark application ended early: " + s.join().tail());
    JobReport mr =
        cluster
            .yarn()
            .job("both-sort-ours", "sort")
            .input(input)
            .reducers(3)
            .withRdmaShuffle()
            .run(600);
    boolean sparkStillRan = !s.isDone();
    Files.writeString(out.resolve("resume"), "");
    SparkApplication.Outcome o = s.get(900, TimeUnit.SECONDS);
    System.out.printf(
        "both engines at once: MapReduce sort %.1f s (stock alone %.1f s), Spark application %.1f"
            + " s, both %.1f s%n",
        mr.seconds(), stock.seconds(), o.seconds(), (System.nanoTime() - t0) / 1e9);
    assertTrue(sparkStillRan, "the Spark application ended before the MapReduce job");
    assertTrue(o.ok(), "the Spark application failed: " + o.tail());
    assertTrue(mr.succeeded(), mr.describe());
    assertArrayEquals(stock.output(), mr.output(), "the sort's output differs from the stock one");
    assertEquals(18, mr.counter(GROUP, "MAPS_READ"), mr.describe());
    assertEquals(0, mr.counter(GROUP, "FALLBACK_FETCHES"), mr.describe());
    assertEquals(expected, Files.readAllLines(out.resolve("first.txt")));
    assertEquals(expected, Files.readAllLines(out.resolve("second.txt")));

    Set<String> sparkHosts =
        Files.readAllLines(out.resolve("tasks.tsv")).stream()
            .map(l -> l.split("\t")[4])
            .map(SparkDynamicAllocationIT::hostName)
            .collect(Collectors.toCollection(TreeSet::new));
    Set<String> shared = new TreeSet<>(mr.hosts("MAP"));
    shared.addAll(mr.hosts("REDUCE"));
    shared.retainAll(sparkHosts);
    assertFalse(
        shared.isEmpty(),
        "no host ran both: MapReduce " + mr.hosts("MAP") + ", Spark " + sparkHosts);

    // every application a NodeManager saw ends at each of its two services, which then log
    Probes.await(
        "every application's end at both services of every NodeManager",
        120,
        () -> {
          for (int i = 1; i <= cluster.spec().hosts(); i++) {
            String log = sinceLastStart(cluster.yarn().nodeManager(i));
            long apps = count(STARTED, log);
            if (count(ENDED_MAPREDUCE, log) < apps || count(ENDED_SPARK, log) < apps) {
              return false;
            }
          }
          return true;
        },
        List.of());
    Map<String, Map<String, Long>> ends = serviceEnds();
    long mrReads = 0;
    long sparkReads = 0;
    Set<String> servedBoth = new TreeSet<>();
    for (int i = 1; i <= cluster.spec().hosts(); i++) {
      String h = "rs-h" + i;
      Map<String, Long> m = last(ends, h + " MapReduce");
      Map<String, Long> sp = last(ends, h + " Spark");
      System.out.printf("%s after both ended: MapReduce service %s, Spark service %s%n", h, m, sp);
      for (Map<String, Long> x : List.of(m, sp)) {
        assertFalse(x.isEmpty(), h + ": a service logged no application's end");
        assertEquals(0L, x.get("stillAdmitted"), h + ": " + x);
        assertEquals(0L, x.get("registeredOutputs"), h + ": " + x);
        assertEquals(0L, x.get("registeredRegions"), h + ": " + x);
      }
      long mrHere =
          m.get("readsServed") - last(before, h + " MapReduce").getOrDefault("readsServed", 0L);
      long sparkHere =
          sp.get("readsServed") - last(before, h + " Spark").getOrDefault("readsServed", 0L);
      if (mrHere > 0 && sparkHere > 0) {
        servedBoth.add(h);
      }
      mrReads += mrHere;
      sparkReads += sparkHere;
    }
    assertTrue(mrReads > 0, "the MapReduce services served no READ");
    assertTrue(sparkReads > 0, "the Spark services served no READ");
    assertFalse(servedBoth.isEmpty(), "no NodeManager served READs of both engines");
  }

  private static long metricsFiles(Path dir) {
    try (var files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().contains(".rdmaShuffle.")).count();
    } catch (IOException e) {
      return 0;
    }
  }

  /** A host's name from what Spark calls it (a name, or the host's address). */
  private static String hostName(String host) {
    return cluster.hosts().stream()
        .filter(h -> h.address().equals(host) || h.name().equals(host))
        .map(Host::name)
        .findFirst()
        .orElse(host);
  }

  private static final Pattern STARTED =
      Pattern.compile("Application application_\\S+ transitioned from NEW to INITING");
  private static final Pattern ENDED_MAPREDUCE =
      Pattern.compile("rdma-shuffle MapReduce service: job \\S+ ended");
  private static final Pattern ENDED_SPARK =
      Pattern.compile("rdma-shuffle Spark service: application \\S+ ended");

  private static long count(Pattern p, String text) {
    return p.matcher(text).results().count();
  }

  private static final Pattern ENDED =
      Pattern.compile(
          "rdma-shuffle (MapReduce|Spark) service: (?:job|application) (\\S+) ended;.*after its"
              + " withdrawal: \\{([^}]*)\\}");

  /**
   * What the services of every running NodeManager logged at each application's end, by {@code
   * "rs-hN MapReduce|Spark application"}, in log order.
   */
  private static Map<String, Map<String, Long>> serviceEnds() {
    Map<String, Map<String, Long>> ends = new java.util.LinkedHashMap<>();
    for (int i = 1; i <= cluster.spec().hosts(); i++) {
      Matcher mt = ENDED.matcher(sinceLastStart(cluster.yarn().nodeManager(i)));
      while (mt.find()) {
        Map<String, Long> m = new java.util.LinkedHashMap<>();
        for (String kv : mt.group(3).split(", ")) {
          String[] f = kv.split("=");
          m.put(f[0], Long.parseLong(f[1]));
        }
        ends.put("rs-h" + i + " " + mt.group(1) + " " + mt.group(2), m);
      }
    }
    return ends;
  }

  /**
   * The last of {@code ends} whose key starts with {@code prefix} ("rs-h2 Spark"); empty if none.
   */
  private static Map<String, Long> last(Map<String, Map<String, Long>> ends, String prefix) {
    Map<String, Long> last = Map.of();
    for (Map.Entry<String, Map<String, Long>> e : ends.entrySet()) {
      if (e.getKey().startsWith(prefix + " ")) {
        last = e.getValue();
      }
    }
    return last;
  }

  /**
   * Both runs' results are the stock shuffle's; the second run ran the reduce stage only, on
   * executors that started after the first run's had gone, and read every map output found at the
   * node services without a fallback.
   */
  private static void checkReadFromTheNodeServices(Path out, long locatedBefore) throws Exception {
    assertEquals(expected, Files.readAllLines(out.resolve("first.txt")));
    assertEquals(expected, Files.readAllLines(out.resolve("second.txt")));
    List<String[]> tasks =
        Files.readAllLines(out.resolve("tasks.tsv")).stream().map(l -> l.split("\t")).toList();
    Set<String> firstExecutors = executors(tasks, "1");
    Set<String> secondExecutors = executors(tasks, "2");
    assertFalse(secondExecutors.isEmpty());
    assertTrue(
        tasks.stream()
            .filter(t -> t[0].equals("2"))
            .allMatch(t -> t[2].equals("ResultTask") && t[7].equals("Success")),
        "second run: " + tasks.stream().filter(t -> t[0].equals("2")).map(List::of).toList());
    assertTrue(
        tasks.stream().filter(t -> t[0].equals("1")).anyMatch(t -> t[2].equals("ShuffleMapTask")));
    Set<String> both = new TreeSet<>(firstExecutors);
    both.retainAll(secondExecutors);
    assertTrue(both.isEmpty(), "executors of both runs: " + both);

    Map<String, Map<String, Long>> m = ClusterTesting.executorMetrics(out.resolve("metrics"));
    for (String e : secondExecutors) {
      Map<String, Long> x = m.get(e);
      assertNotNull(x, "no rdmaShuffle metrics of executor " + e + ": " + m.keySet());
      assertEquals(0L, x.getOrDefault("fallbacks", -1L), e + ": " + x);
      assertTrue(x.getOrDefault("locates", 0L) > 0, e + " located nothing: " + x);
      assertTrue(
          x.getOrDefault("blocksRemote", 0L) + x.getOrDefault("blocksLocal", 0L) > 0,
          e + " read nothing: " + x);
    }
    // each NodeManager logs its count when the application's end reaches it
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (located() == locatedBefore && System.nanoTime() < deadline) {
      Thread.sleep(500);
    }
    long served = located() - locatedBefore;
    assertTrue(served > 0, "the node services answered no locate request");
    System.out.printf(
        "node services located %d map outputs; second run on executors %s, first" + " on %s%n",
        served, secondExecutors, firstExecutors);
  }

  private static Set<String> executors(List<String[]> tasks, String run) {
    return tasks.stream()
        .filter(t -> t[0].equals(run))
        .map(t -> t[3])
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /** A daemon's log since its last start (the harness heads each start with "===="). */
  private static String sinceLastStart(Daemon d) {
    try {
      String log = Files.readString(d.spec().log());
      return log.substring(Math.max(0, log.lastIndexOf("\n==== ")));
    } catch (IOException e) {
      return "";
    }
  }

  private static final Pattern RECOVERED =
      Pattern.compile(
          "rdma-shuffle Spark service: .*\\(authentication on\\).* \\d+ applications and (\\d+)"
              + " executors recovered");
  private static final Pattern LOCATED =
      Pattern.compile(
          "rdma-shuffle Spark service: application \\S+ ended; served so far: \\{[^}]*"
              + "serve\\.located=(\\d+)");

  /** Map outputs located by every running NodeManager's service, from their logs. */
  private static long located() {
    long sum = 0;
    for (int i = 1; i <= cluster.spec().hosts(); i++) {
      // the running NodeManager's own count: its log since its last start
      Matcher mt = LOCATED.matcher(sinceLastStart(cluster.yarn().nodeManager(i)));
      long last = 0;
      while (mt.find()) {
        last = Long.parseLong(mt.group(1));
      }
      sum += last;
    }
    return sum;
  }
}
