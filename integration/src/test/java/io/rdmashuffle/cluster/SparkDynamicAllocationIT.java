package io.rdmashuffle.cluster;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.cluster.spark.SparkApplication;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
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

/**
 * Spark on YARN with dynamic allocation, as the README's section tells operators to set it up:
 * every NodeManager runs rdma-shuffle's Spark service as {@code spark_shuffle} (the plugin jar on
 * its class path, two yarn-site.xml properties), applications set {@code
 * spark.shuffle.service.enabled} and dynamic allocation with a short idle timeout. The application
 * shuffles, waits until every executor was removed, and reads the shuffle again on new executors:
 * with rdma-shuffle the map outputs are then served by the node services alone (their locate
 * answers counted in the NodeManagers' logs, none by a fallback), and both runs' results equal
 * those of the stock shuffle, which Spark's own handler in the same service serves. Then the same
 * with every NodeManager restarted (recovery on) while the application has no executors: the
 * restarted services recovered the application and its executors and serve the second read.
 */
@Timeout(1800)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SparkDynamicAllocationIT {
  static final String APP = "io.rdmashuffle.cluster.apps.ShuffleAfterExecutorsLeftApp";
  static final String SERVICE = "io.rdmashuffle.hadoop.spark.SparkShuffleService";
  static Cluster cluster;

  /** The stock shuffle's result. */
  static List<String> expected;

  @BeforeAll
  static void start() throws InterruptedException {
    ClusterTesting.assumeRoot();
    cluster =
        startWhenFree(
            ClusterSpec.builder("yarn-dynalloc")
                .hosts(3)
                .yarn()
                .yarnSite("yarn.nodemanager.aux-services", "mapreduce_shuffle,spark_shuffle")
                .yarnSite("yarn.nodemanager.aux-services.spark_shuffle.class", SERVICE)
                .yarnSite("spark.shuffle.rdma.transport", "tcp")
                // NodeManager recovery: restarted NodeManagers keep their containers and
                // applications
                .yarnSite("yarn.nodemanager.recovery.enabled", "true")
                .yarnSite("yarn.nodemanager.recovery.supervised", "true")
                .build());
  }

  /**
   * Starts the cluster once no other harness cluster runs on this machine (one at a time; on a
   * shared machine another test's may be running), waiting at most 20 minutes.
   */
  private static Cluster startWhenFree(ClusterSpec spec) throws InterruptedException {
    long deadline = System.nanoTime() + 20 * 60_000_000_000L;
    while (true) {
      try {
        return Cluster.start(spec, ClusterTesting.paths());
      } catch (IllegalStateException e) {
        if (!String.valueOf(e.getMessage()).startsWith("a harness cluster is running")
            || System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(5_000);
      }
    }
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

  @Test
  @Order(2)
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
          "rdma-shuffle Spark service: .* \\d+ applications and (\\d+) executors recovered");
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
