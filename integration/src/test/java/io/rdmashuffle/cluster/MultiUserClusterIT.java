/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.cluster.apps.AppData;
import io.rdmashuffle.cluster.spark.SparkApplication;
import io.rdmashuffle.cluster.yarn.JobReport;
import io.rdmashuffle.cluster.yarn.MapReduceJob;
import io.rdmashuffle.cluster.yarn.MultiUser;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * YARN as operators run it ({@link MultiUser}): NodeManagers as {@code yarn}, containers as their
 * job's user through Hadoop's LinuxContainerExecutor, two job users. Each user's jobs on
 * rdma-shuffle (tcp) give the results they must, every map output READ, no fallback, while the map
 * outputs are the job user's files (group {@code hadoop}, no access for other users) that the
 * NodeManager's services serve without ever being their owner.
 */
@Timeout(1800)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MultiUserClusterIT {
  static final String GROUP = "rdma-shuffle";
  static final String TASKS = "org.apache.hadoop.mapreduce.TaskCounter";
  static final int MAPS = 6;
  static final int REDUCES = 3;
  static final String SPARK_SERVICE = "io.rdmashuffle.hadoop.spark.SparkShuffleService";
  static final String SPARK_APP = "io.rdmashuffle.cluster.apps.ShuffleAfterExecutorsLeftApp";
  static Cluster cluster;
  static Path words;
  static Map<String, Integer> counts;

  @BeforeAll
  static void start() throws IOException {
    ClusterTesting.assumeRoot();
    cluster =
        Cluster.start(
            ClusterSpec.builder("yarn-multiuser")
                .hosts(3)
                .yarn()
                .multiUser()
                // the application's files stay after its end (10 min), so the test can look at
                // their owners and modes
                .yarnSite("yarn.nodemanager.delete.debug-delay-sec", "600")
                // Spark on YARN with dynamic allocation, as a secured cluster runs it
                .yarnSite("yarn.nodemanager.aux-services", "mapreduce_shuffle,spark_shuffle")
                .yarnSite("yarn.nodemanager.aux-services.spark_shuffle.class", SPARK_SERVICE)
                .yarnSite("spark.shuffle.rdma.transport", "tcp")
                .yarnSite("spark.authenticate", "true")
                .build(),
            ClusterTesting.paths());
    words = cluster.shared().resolve("in/words");
    counts = words(words, MAPS, 4_000, 7);
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** {@code files} files of {@code n} lines of words (one map each); the words' counts. */
  static Map<String, Integer> words(Path dir, int files, int n, long seed) throws IOException {
    Files.createDirectories(dir);
    Random r = new Random(seed);
    Map<String, Integer> c = new TreeMap<>();
    for (int f = 0; f < files; f++) {
      try (Writer w = Files.newBufferedWriter(dir.resolve("part-" + f + ".txt"))) {
        for (int i = 0; i < n; i++) {
          StringBuilder line = new StringBuilder();
          for (int k = 0; k < 8; k++) {
            String word = "w" + Integer.toString(r.nextInt(20_000), 36);
            c.merge(word, 1, Integer::sum);
            line.append(word).append(' ');
          }
          w.write(line.append('\n').toString());
        }
      }
    }
    return c;
  }

  static Map<String, Integer> counted(JobReport job) {
    Map<String, Integer> m = new TreeMap<>();
    for (String line :
        new String(job.output(), java.nio.charset.StandardCharsets.UTF_8).split("\n")) {
      if (!line.isEmpty()) {
        String[] kv = line.split("\t");
        m.put(kv[0], Integer.parseInt(kv[1]));
      }
    }
    return m;
  }

  private static MapReduceJob wordCount(String name, String user) {
    return cluster
        .yarn()
        .job(name, "wordcount")
        .as(user)
        .input(words)
        .output(cluster.shared().resolve("out").resolve(name))
        .reducers(REDUCES)
        .withRdmaShuffle();
  }

  /**
   * Alice's job holds its map outputs served (its reducers, their shuffle done, wait); a witness on
   * the wire between her reducer and a NodeManager sees the locate answers, descriptors included
   * (the witness here: the test, with her job's secret from one of her containers' token files,
   * READs each piece it saw: served). Bob's reducer, holding his own job's valid secret, then asks
   * every NodeManager for her map outputs, naming her job (refused: 401, his proof is not of her
   * job), naming his own (refused: no map attempts of his job; 401 where his job has no container),
   * and READs each descriptor the witness saw over a connection proving his job (refused by the
   * responder: not his application's region; or in the handshake, where his job is unknown): none
   * of her bytes, each refusal counted by the NodeManagers. After her job ended, a late reducer of
   * hers (her secret, kept by the witness) is refused too.
   */
  @Test
  @Order(1)
  void anotherUsersReducerWithItsOwnValidSecretGetsNoneOfHerBytes() throws Exception {
    Path hold = Files.createDirectories(cluster.shared().resolve("hold"));
    Files.setPosixFilePermissions(hold, PosixFilePermissions.fromString("rwxrwxrwx"));
    CompletableFuture<JobReport> victim =
        CompletableFuture.supplyAsync(
            () ->
                cluster
                    .yarn()
                    .job("held-alice", "hold")
                    .as(MultiUser.ALICE)
                    .input(words)
                    .output(cluster.shared().resolve("out/held-alice"))
                    .reducers(REDUCES)
                    .withRdmaShuffle()
                    .set("rdma.cluster.hold.dir", hold.toString())
                    .run(900));
    Probes.await(
        "alice's " + REDUCES + " reducers holding after their shuffle",
        600,
        () -> victim.isDone() || holding(hold).size() >= REDUCES,
        List.of());
    assertFalse(victim.isDone(), () -> "alice's job ended early: " + victim.join().describe());
    String job = Files.readString(holding(hold).get(0)).strip();
    String spec = mapsByHost(MultiUser.ALICE, job);
    Path tokens = hold.resolve("alice.tokens");
    Files.copy(containerTokens(MultiUser.ALICE, job), tokens);
    Files.setPosixFilePermissions(tokens, PosixFilePermissions.fromString("rw-------"));
    Path observed = hold.resolve("observed.txt");
    assertEquals(0, observe(tokens, job, spec, observed), "the witness failed");
    List<String> seen = Files.readAllLines(observed);
    int hosts = spec.split(";").length;
    assertEquals(hosts, seen.size(), "witnessed: " + seen);
    for (String line : seen) {
      String[] f = line.split(" ");
      assertEquals(7, f.length, "alice's outputs not located on every host: " + seen);
      assertEquals(f[4], f[5], "alice's own secret READs her bytes: " + line);
    }
    Map<String, Long> before = refusals();

    JobReport bob =
        cluster
            .yarn()
            .job("trespass-bob", "trespass")
            .as(MultiUser.BOB)
            .input(cluster.shared().resolve("in/words/part-0.txt"))
            .output(cluster.shared().resolve("out/trespass-bob"))
            .reducers(1)
            .withRdmaShuffle()
            .set("rdma.cluster.trespass.victim.job", job)
            .set("rdma.cluster.trespass.victim.maps", spec)
            .set("rdma.cluster.trespass.observed", observed.toString())
            .run(600);
    assertTrue(bob.succeeded(), bob.describe());
    List<String> tried =
        List.of(new String(bob.output(), java.nio.charset.StandardCharsets.UTF_8).split("\n"));
    System.out.println("bob's reducer tried, against alice's job " + job + ":");
    tried.forEach(t -> System.out.println("  " + t));
    int locates = 0;
    int readsRefused = 0;
    int connectsRefused = 0;
    for (String t : tried) {
      String[] f = t.split(" ");
      switch (f[0]) {
        case "locate-victims-job" -> {
          assertEquals("401", f[2], t);
          assertEquals("false", f[3], t);
          locates++;
        }
        case "locate-as-own-job" -> {
          // her maps are no map attempts of his job (refused), or his job has no container on
          // that host, so the host does not know it (401)
          assertTrue(f[2].matches("401|(NOT_FOUND|REFUSED)(,(NOT_FOUND|REFUSED))*"), t);
          assertEquals("false", f[3], t);
          locates++;
        }
        case "read" -> {
          assertEquals("0", f[2], "bytes of alice's READ by bob: " + t);
          // the responder refuses the region (not his application's), or, on a host that does
          // not know his job, the connection is refused in its handshake
          if (f[3].startsWith("RemoteAccessException")) {
            readsRefused++;
          } else {
            assertTrue(f[3].startsWith("connect:_AuthenticationException"), t);
            connectsRefused++;
          }
        }
        default -> fail("unexpected line " + t);
      }
    }
    assertEquals(2 * hosts, locates, tried.toString());
    assertEquals(seen.size(), readsRefused + connectsRefused, tried.toString());

    Files.writeString(hold.resolve("release"), "");
    JobReport alice = victim.join();
    checkWordCount(alice, MultiUser.ALICE);
    // every NodeManager that held her outputs says so at her job's end, with its counters
    Probes.await(
        "the NodeManagers' lines at the end of " + job,
        120,
        () -> {
          for (String part : spec.split(";")) {
            Host h =
                cluster.hosts().stream()
                    .filter(x -> x.name().equals(part.substring(0, part.indexOf(':'))))
                    .findFirst()
                    .orElseThrow();
            try {
              if (!Files.readString(h.log("nodemanager")).contains("job " + job + " ended")) {
                return false;
              }
            } catch (IOException e) {
              return false;
            }
          }
          return true;
        },
        List.of());
    Map<String, Long> after = refusals();
    System.out.println("NodeManagers' refusals before bob's job " + before + ", after " + after);
    assertTrue(
        after.get("refusedLocates") >= before.get("refusedLocates") + hosts,
        "refused locates counted: " + before + " -> " + after);
    assertTrue(
        after.get("refusedReads") >= before.get("refusedReads") + readsRefused,
        "refused READs counted: " + before + " -> " + after);
    assertTrue(
        after.get("refusedHandshakes") >= before.get("refusedHandshakes") + connectsRefused,
        "refused handshakes counted: " + before + " -> " + after);

    // a late reducer of alice's (a killed or speculative attempt) after her job ended
    Path late = hold.resolve("late.txt");
    assertEquals(0, observe(tokens, job, spec, late), "the late reducer's run failed");
    for (String line : Files.readAllLines(late)) {
      assertTrue(line.startsWith("# ") && line.endsWith(" 401"), "late: " + line);
    }
    // and its READs of what it had located before, over a connection proving her job
    Path lateReads = hold.resolve("late-reads.txt");
    assertEquals(0, tenants("read", tokens, job, observed.toString(), lateReads));
    List<String> refused = Files.readAllLines(lateReads);
    assertEquals(seen.size(), refused.size(), refused.toString());
    for (String line : refused) {
      String[] f = line.split(" ");
      assertEquals("0", f[1], "late READ got bytes: " + line);
      assertTrue(f[2].startsWith("connect:"), "late READ not refused at connect: " + line);
    }
    System.out.println("late reducer of " + job + ": " + Files.readAllLines(late) + " " + refused);
  }

  /**
   * Bob's Spark application with dynamic allocation on rdma-shuffle: its executors run as him, the
   * node services (as {@code yarn}) serve his map outputs after every executor left, and both runs
   * equal the sums computed without Spark, every block read through rdma-shuffle, no fallback.
   */
  @Test
  @Order(2)
  void aSparkApplicationWithDynamicAllocationOfTheOtherUserReadsFromTheNodeServices()
      throws Exception {
    checkSparkApplication(sparkApplication("spark-bob", MultiUser.BOB).run(900));
  }

  /**
   * The full tier: each user runs what the other ran above, at the same time on the same
   * NodeManagers: Alice's Spark application and Bob's word count.
   */
  @Test
  @Order(3)
  @EnabledIfSystemProperty(named = "rdmashuffle.tier", matches = "full")
  void eachUserRunsTheOtherEngineAtTheSameTime() throws Exception {
    SparkApplication spark = sparkApplication("spark-alice", MultiUser.ALICE);
    CompletableFuture<SparkApplication.Outcome> s =
        CompletableFuture.supplyAsync(() -> spark.run(900));
    checkWordCount(wordCount("wordcount-bob", MultiUser.BOB).run(600), MultiUser.BOB);
    checkSparkApplication(s.join());
  }

  /** {@code user}'s dynamic allocation application on rdma-shuffle, writing into its folder. */
  private static SparkApplication sparkApplication(String name, String user) throws IOException {
    Path out = Files.createDirectories(cluster.shared().resolve(name));
    Files.setPosixFilePermissions(out, PosixFilePermissions.fromString("rwxrwxrwx"));
    Path metrics = Files.createDirectories(out.resolve("metrics"));
    Files.setPosixFilePermissions(metrics, PosixFilePermissions.fromString("rwxrwxrwx"));
    return ClusterTesting.withExecutorMetrics(
            cluster.yarn().sparkApplication(name, SPARK_APP), metrics)
        .as(user)
        .withRdmaShuffle()
        .conf("spark.shuffle.rdma.transport", "tcp")
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

  /**
   * Both runs of the application equal the sums computed without Spark; the second run's executors
   * (new ones: every executor of the first had left) located the map outputs at the node services,
   * and no executor fell back to the stock shuffle.
   */
  private static void checkSparkApplication(SparkApplication.Outcome o) throws IOException {
    assertTrue(o.ok(), o.name() + " failed: " + o.tail());
    Path out = cluster.shared().resolve(o.name());
    List<String> expected = new ArrayList<>();
    AppData.sumsByKey(300_000, 20_000, 6).forEach((k, v) -> expected.add(k + "=" + v));
    java.util.Collections.sort(expected);
    assertEquals(expected, Files.readAllLines(out.resolve("first.txt")));
    assertEquals(expected, Files.readAllLines(out.resolve("second.txt")));
    List<String[]> tasks =
        Files.readAllLines(out.resolve("tasks.tsv")).stream().map(l -> l.split("\t")).toList();
    List<String> second =
        tasks.stream().filter(t -> t[0].equals("2")).map(t -> t[3]).distinct().toList();
    assertFalse(second.isEmpty(), o.name() + ": no second run");
    Map<String, Map<String, Long>> m = ClusterTesting.executorMetrics(out.resolve("metrics"));
    for (String e : second) {
      Map<String, Long> x = m.get(e);
      assertNotNull(x, "no rdmaShuffle metrics of executor " + e + ": " + m.keySet());
      assertTrue(x.getOrDefault("locates", 0L) > 0, e + " located nothing: " + x);
    }
    for (String e : m.keySet()) {
      assertEquals(0L, m.get(e).getOrDefault("fallbacks", -1L), e + ": " + m.get(e));
    }
  }

  /** A token file of one of the job's containers (its credentials: the shuffle secret). */
  private static Path containerTokens(String user, String job) throws IOException {
    String app = job.replace("job_", "application_");
    for (Host h : cluster.hosts()) {
      Path dir = h.dir("nm-local").resolve("usercache/" + user + "/appcache/" + app);
      if (Files.isDirectory(dir)) {
        try (Stream<Path> s = Files.list(dir)) {
          for (Path c :
              s.filter(p -> p.getFileName().toString().startsWith("container_")).toList()) {
            if (Files.exists(c.resolve("container_tokens"))) {
              return c.resolve("container_tokens");
            }
          }
        }
      }
    }
    throw new IllegalStateException("no container of " + job + " with a token file");
  }

  private static List<Path> holding(Path dir) {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.getFileName().toString().startsWith("holding-")).sorted().toList();
    } catch (IOException e) {
      return List.of();
    }
  }

  /** {@code host:attempt,...;host:...} of a job's map outputs, as the hosts hold them. */
  private static String mapsByHost(String user, String job) throws IOException {
    String app = job.replace("job_", "application_");
    List<String> parts = new ArrayList<>();
    for (Host h : cluster.hosts()) {
      Path output = h.dir("nm-local").resolve("usercache/" + user + "/appcache/" + app + "/output");
      if (Files.isDirectory(output)) {
        try (Stream<Path> s = Files.list(output)) {
          // reduce attempts keep their merges here too
          List<String> maps =
              s.map(p -> p.getFileName().toString())
                  .filter(n -> n.contains("_m_"))
                  .sorted()
                  .toList();
          if (!maps.isEmpty()) {
            parts.add(h.name() + ":" + String.join(",", maps));
          }
        }
      }
    }
    return String.join(";", parts);
  }

  /** The witness: {@code Tenants observe}, as root in the root namespace; its exit code. */
  private static int observe(Path tokens, String job, String spec, Path out) throws Exception {
    return tenants("observe", tokens, job, spec, out);
  }

  /** {@code Tenants MODE TOKENS JOB WHAT OUT LOCAL_HOST} in the root namespace; its exit code. */
  private static int tenants(String mode, Path tokens, String job, String what, Path out)
      throws Exception {
    List<String> cmd =
        List.of(
            Launcher.java(),
            "-Xmx256m",
            "-XX:+UseSerialGC",
            "-cp",
            cluster.yarn().clientConf()
                + ":"
                + cluster.yarn().home().resolve("share/hadoop/common/lib")
                + "/*:"
                + cluster.paths().hadoopJobsJar()
                + ":"
                + cluster.paths().hadoopPluginJar(),
            "io.rdmashuffle.cluster.hadoop.Tenants",
            mode,
            tokens.toString(),
            job,
            what,
            out.toString(),
            cluster.edge().address());
    Process p =
        Launcher.start(
            cluster.edge(),
            new ProcessSpec(
                mode + "-" + out.getFileName(),
                cmd,
                cluster.yarn().clientEnv(),
                cluster.work().resolve("logs/client/" + mode + "-" + out.getFileName() + ".log")),
            cluster.spec().name());
    if (!p.waitFor(300, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return 124;
    }
    return p.exitValue();
  }

  /**
   * The NodeManagers' refusal counters, summed, from the MapReduce service's line at each job's end
   * ({@code after its withdrawal: {..., refusedHandshakes=N, refusedLocates=N, refusedReads=N}}):
   * the latest per host.
   */
  private static Map<String, Long> refusals() throws IOException {
    Map<String, Long> sum =
        new TreeMap<>(Map.of("refusedHandshakes", 0L, "refusedLocates", 0L, "refusedReads", 0L));
    for (Host h : cluster.hosts()) {
      List<String> lines = Files.readAllLines(h.log("nodemanager"));
      for (int i = lines.size() - 1; i >= 0; i--) {
        String l = lines.get(i);
        if (l.contains("rdma-shuffle MapReduce service: job") && l.contains("refusedReads=")) {
          for (String k : sum.keySet().toArray(new String[0])) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile(k + "=(\\d+)").matcher(l);
            if (m.find()) {
              sum.merge(k, Long.parseLong(m.group(1)), Long::sum);
            }
          }
          break;
        }
      }
    }
    return sum;
  }

  /**
   * A word count of {@code user} on rdma-shuffle: the input's counts, every map output READ, no
   * fallback, and its map outputs are the user's files, group {@code hadoop}, in the application's
   * directory of mode 2750 (the NodeManagers, as {@code yarn}, served them without owning any).
   */
  private static void checkWordCount(JobReport job, String user) throws IOException {
    assertTrue(job.succeeded(), job.describe());
    assertEquals(counts, counted(job), job + ": counts differ from the input's");
    assertEquals((long) MAPS * REDUCES, job.counter(GROUP, "MAPS_READ"), job.describe());
    assertEquals(job.counter(TASKS, "REDUCE_SHUFFLE_BYTES"), job.counter(GROUP, "BYTES_READ"));
    for (String c : List.of("FALLBACK_NODES", "FALLBACK_FETCHES", "READ_FAILURES")) {
      assertEquals(0, job.counter(GROUP, c), job + " " + c);
    }
    List<Path> outputs = mapOutputs(user, job.jobId());
    assertEquals(MAPS, outputs.size(), "map outputs of " + job + ": " + outputs);
    for (Path p : outputs) {
      // MapReduce writes file.out rw-r--r-- (its own umask setting, 022), group hadoop from the
      // setgid directories; what keeps other users out is the application's directory, 2750
      PosixFileAttributes a = Files.readAttributes(p, PosixFileAttributes.class);
      assertEquals(user, a.owner().getName(), p.toString());
      assertEquals(MultiUser.NM_GROUP, a.group().getName(), p.toString());
      assertTrue(
          PosixFilePermissions.toString(a.permissions()).matches("rw-r-.r--"),
          p + ": " + PosixFilePermissions.toString(a.permissions()));
      Path app = p.getParent().getParent().getParent();
      PosixFileAttributes d = Files.readAttributes(app, PosixFileAttributes.class);
      assertEquals(user, d.owner().getName(), app.toString());
      assertEquals(MultiUser.NM_GROUP, d.group().getName(), app.toString());
      assertEquals("rwxr-x---", PosixFilePermissions.toString(d.permissions()), app.toString());
    }
  }

  /** The data files of a job's map outputs on every host ({@code .../output/attempt_*}). */
  static List<Path> mapOutputs(String user, String jobId) throws IOException {
    String app = jobId.replace("job_", "application_");
    List<Path> found = new ArrayList<>();
    for (Host h : cluster.hosts()) {
      Path output = h.dir("nm-local").resolve("usercache/" + user + "/appcache/" + app + "/output");
      if (Files.isDirectory(output)) {
        try (Stream<Path> s = Files.walk(output)) {
          s.filter(f -> f.getFileName().toString().equals("file.out")).forEach(found::add);
        }
      }
    }
    return found;
  }
}
