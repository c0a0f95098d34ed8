/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.jobs;

import static io.rdmashuffle.hadoop.jobs.TestJobs.*;
import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.hadoop.JobSecrets;
import io.rdmashuffle.hadoop.MapReduceConfig;
import io.rdmashuffle.hadoop.reduce.RdmaShuffleCounter;
import io.rdmashuffle.hadoop.service.RdmaShuffleHandler;
import io.rdmashuffle.hadoop.testing.Inputs;
import io.rdmashuffle.hadoop.testing.MapOutputsCall;
import io.rdmashuffle.hadoop.testing.RdmaMiniCluster;
import io.rdmashuffle.hadoop.testing.RefusingTransports;
import io.rdmashuffle.mapoutput.LocateAnswer;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.testing.Transports;
import io.rdmashuffle.transport.AuthenticationException;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import io.rdmashuffle.transport.tcp.TcpTransport;
import java.io.File;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import javax.crypto.SecretKey;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.examples.terasort.TeraGen;
import org.apache.hadoop.examples.terasort.TeraSort;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.compress.DefaultCodec;
import org.apache.hadoop.mapred.IndexRecord;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.SpillRecord;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.TaskCompletionEvent;
import org.apache.hadoop.mapreduce.security.TokenCache;
import org.apache.hadoop.mapreduce.security.token.JobTokenSecretManager;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Real MapReduce jobs on a MiniMRYarnCluster of two NodeManagers running rdma-shuffle's service:
 * each job runs on the stock shuffle and on ours, and the outputs must be equal, byte for byte.
 * Then faults: a node stops serving READs mid-job, a corrupt map output, forged requests.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 10, unit = java.util.concurrent.TimeUnit.MINUTES)
class MapReduceJobsTest {
  private static RdmaMiniCluster cluster;
  private static Path words;

  /** The NodeManagers' transports: tcp whose registrations fail while a test asks. */
  private static final RefusingTransports REFUSING = new RefusingTransports();

  @BeforeAll
  static void start() throws Exception {
    RdmaShuffleHandler.transportSelector(REFUSING.selector());
    cluster = RdmaMiniCluster.start("MapReduceJobsTest", 2);
    words = Inputs.words(cluster.fs(), cluster.path("words"), 4, 1_500_000, 5000, 42);
  }

  @AfterAll
  static void stop() {
    RdmaShuffleHandler.transportSelector(null);
    if (cluster != null) {
      cluster.close();
    }
  }

  private static byte[] stockAndOurs(
      String name, int reducers, java.util.function.Consumer<Configuration> tweak)
      throws Exception {
    Job stock = run(wordCount(cluster, name, false, words, reducers, tweak));
    assertStock(stock.getCounters());
    Job ours = run(wordCount(cluster, name, true, words, reducers, tweak));
    assertAllRead(ours.getCounters());
    byte[] expected = cluster.output(output(name, false));
    assertTrue(expected.length > 10_000, "word count wrote " + expected.length + " bytes");
    assertArrayEquals(expected, cluster.output(output(name, true)), name + ": outputs differ");
    return expected;
  }

  private static Path output(String name, boolean ours) {
    return cluster.path(name + (ours ? "-ours" : "-stock"));
  }

  @Test
  @Order(1)
  void wordCountGivesTheStockOutput() throws Exception {
    stockAndOurs("wordcount", 3, c -> {});
  }

  // full tier: compressed map outputs are read as any other bytes (the plain word
  // count and the TeraSort run in the ci tier)
  @EnabledIfSystemProperty(named = "rdmashuffle.tier", matches = "full")
  @Test
  @Order(2)
  void wordCountWithCompressedMapOutputGivesTheStockOutput() throws Exception {
    stockAndOurs(
        "wordcount-compressed",
        2,
        c -> {
          c.setBoolean(MRJobConfig.MAP_OUTPUT_COMPRESS, true);
          c.setClass(
              MRJobConfig.MAP_OUTPUT_COMPRESS_CODEC,
              DefaultCodec.class,
              org.apache.hadoop.io.compress.CompressionCodec.class);
        });
  }

  @Test
  @Order(3)
  void emptyMapOutputsAndEmptyPartitionsGiveTheStockOutput() throws Exception {
    Path in = cluster.path("words-and-nothing");
    if (!cluster.fs().exists(in)) {
      cluster.fs().mkdirs(in);
      org.apache.hadoop.fs.FileUtil.copy(
          cluster.fs(),
          new Path(words, "words-0.txt"),
          cluster.fs(),
          new Path(in, "words-0.txt"),
          false,
          cluster.yarn().getConfig());
      Inputs.empty(cluster.fs(), new Path(in, "nothing.txt"));
    }
    byte[][] outputs = new byte[2][];
    for (boolean ours : new boolean[] {false, true}) {
      Job job = wordCount(cluster, "one-word", ours, in, 4, c -> {});
      job.setMapperClass(OneWordMapper.class);
      run(job);
      Counters c = job.getCounters();
      assertEquals(
          2,
          c.findCounter(org.apache.hadoop.mapreduce.JobCounter.TOTAL_LAUNCHED_MAPS).getValue(),
          "one map reads nothing");
      if (ours) {
        assertAllRead(c);
      }
      outputs[ours ? 1 : 0] = cluster.output(output("one-word", ours));
      assertEquals(4, cluster.parts(output("one-word", ours)));
    }
    assertTrue(new String(outputs[0], StandardCharsets.UTF_8).startsWith("qq\t"));
    assertArrayEquals(outputs[0], outputs[1]);
  }

  @Test
  @Order(4)
  void teraSortWithSeveralReducersAndOnDiskMapOutputsGivesTheStockOutput() throws Exception {
    Path gen = cluster.path("teragen");
    if (!cluster.fs().exists(gen)) {
      assertEquals(
          0,
          ToolRunner.run(
              cluster.jobConf(false),
              new TeraGen(),
              new String[] {"-D" + MRJobConfig.NUM_MAPS + "=4", "200000", gen.toString()}));
    }
    byte[][] outputs = new byte[2][];
    for (boolean ours : new boolean[] {false, true}) {
      Configuration c = cluster.jobConf(ours);
      // segments above 1% of the shuffle memory go to disk: OnDiskMapOutput and on-disk merges
      c.setFloat(MRJobConfig.SHUFFLE_MEMORY_LIMIT_PERCENT, 0.005f);
      c.setBoolean(MRJobConfig.MAP_SPECULATIVE, false);
      c.setBoolean(MRJobConfig.REDUCE_SPECULATIVE, false);
      Path out = TestJobs.output(cluster, "terasort", ours);
      // the simple partitioner (key ranges by prefix) keeps the order total without the sampled
      // partition file, which tasks can't find when the default file system is the local one
      c.setBoolean("mapreduce.terasort.simplepartitioner", true);
      assertEquals(
          0,
          ToolRunner.run(
              c,
              new TeraSort(),
              new String[] {
                "-D" + MRJobConfig.NUM_REDUCES + "=3", gen.toString(), out.toString()
              }));
      Counters counters = cluster.lastJob("TeraSort").getCounters();
      if (ours) {
        assertAllRead(counters);
      } else {
        assertStock(counters);
      }
      assertEquals(3, cluster.parts(out));
      outputs[ours ? 1 : 0] = cluster.output(out);
    }
    assertEquals(200_000 * 100, outputs[0].length);
    assertArrayEquals(outputs[0], outputs[1], "terasort outputs differ");
  }

  @Test
  @Order(5)
  void aNodeThatStopsServingReadsMidJobIsFetchedOverHttp() throws Exception {
    byte[] expected = cluster.output(output("wordcount", false));
    AtomicReference<RdmaShuffleHandler> victim = new AtomicReference<>();
    // right after a node answers its first map outputs request, its READ side goes away: the
    // reducer holds an answer whose READs can only fail
    RdmaShuffleHandler.afterAnswer(
        h -> {
          if (victim.compareAndSet(null, h)) {
            h.stopServingReads();
          }
        });
    try {
      Job job = run(wordCount(cluster, "wordcount-node-lost", true, words, 3, c -> {}));
      Counters c = job.getCounters();
      assertNotNull(victim.get());
      assertTrue(
          c.findCounter(RdmaShuffleCounter.FALLBACK_NODES).getValue() >= 1, "fallback counted");
      assertTrue(c.findCounter(RdmaShuffleCounter.FALLBACK_FETCHES).getValue() >= 1);
      assertArrayEquals(expected, cluster.output(output("wordcount-node-lost", true)));
    } finally {
      RdmaShuffleHandler.afterAnswer(null);
      if (victim.get() != null) {
        victim.get().startServingReads();
      }
    }
  }

  /** Sleeps before reducing, keeping the job's token alive on the nodes for a while. */
  public static final class SlowSumReducer extends Reducer<Text, IntWritable, Text, IntWritable> {
    @Override
    protected void setup(Context context) throws InterruptedException {
      Thread.sleep(context.getConfiguration().getLong("test.reducer.sleep.ms", 0));
    }

    @Override
    protected void reduce(Text key, Iterable<IntWritable> values, Context context)
        throws java.io.IOException, InterruptedException {
      int sum = 0;
      for (IntWritable v : values) {
        sum += v.get();
      }
      context.write(key, new IntWritable(sum));
    }
  }

  @Test
  @Order(6)
  void aLiveNodeRefusesABadTokenAndAnotherJobsRequests() throws Exception {
    Job job =
        wordCount(
            cluster,
            "wordcount-forged",
            true,
            words,
            1,
            c -> {
              c.setFloat(MRJobConfig.COMPLETED_MAPS_FOR_REDUCE_SLOWSTART, 1.0f);
              c.setLong("test.reducer.sleep.ms", 10_000);
            });
    job.setReducerClass(SlowSumReducer.class);
    job.submit();
    SecretKey key =
        JobTokenSecretManager.createSecretKey(TokenCache.getShuffleSecretKey(job.getCredentials()));
    String jobId = job.getJobID().toString();
    int served = 0;
    // a node knows the job (its token) once it ran one of its containers: ask the nodes that ran
    // maps, for the maps they ran
    for (java.util.Map.Entry<Integer, List<String>> node : mapsByShufflePort(job, 4).entrySet()) {
      int port = node.getKey();
      List<String> maps = node.getValue();
      MapOutputsCall good = MapOutputsCall.send(port, jobId, 0, maps, key);
      assertEquals(200, good.status(), good.text());
      for (LocateAnswer.Located e : good.answer().maps()) {
        assertEquals(LocateAnswer.Status.OK, e.status(), e.map() + " " + e.message());
        served++;
      }
      SecretKey wrong = JobTokenSecretManager.createSecretKey(new byte[8]);
      MapOutputsCall forged = MapOutputsCall.send(port, jobId, 0, maps, wrong);
      assertEquals(401, forged.status());
      assertTrue(forged.body().length < 100, "a refusal carries no map output bytes");
      String foreign = new org.apache.hadoop.mapreduce.JobID("1", 1).toString();
      assertEquals(
          401,
          MapOutputsCall.send(port, foreign, 0, maps, key).status(),
          "a job the node does not know");

      // the READ side: a reader proving another secret for this job is refused at the handshake
      LocateAnswer a = good.answer();
      RdmaConf conf = RdmaConf.defaults(MapReduceConfig.SCHEMA);
      try (TcpTransport reader =
          Transports.tcp(
              conf,
              ApplicationSecrets.of(jobId, JobSecrets.transportSecret(new byte[8], jobId)),
              "127.0.0.1",
              new TransportMetrics())) {
        assertThrows(AuthenticationException.class, () -> reader.connect(a.responder(), jobId));
      }
      try (TcpTransport reader =
          Transports.tcp(
              conf,
              ApplicationSecrets.of(jobId, JobSecrets.transportSecret(key.getEncoded(), jobId)),
              "127.0.0.1",
              new TransportMetrics())) {
        reader.connect(a.responder(), jobId).close();
      }
    }
    assertEquals(4, served, "each map's output is served by the node that ran it");
    run(job);
  }

  /** The succeeded maps, by the shuffle port of the node that ran each. */
  private static java.util.Map<Integer, List<String>> mapsByShufflePort(Job job, int count)
      throws Exception {
    succeededMaps(job, count);
    java.util.Map<Integer, List<String>> byPort = new java.util.TreeMap<>();
    for (TaskCompletionEvent e : job.getTaskCompletionEvents(0, 1000)) {
      if (e.isMapTask() && e.getStatus() == TaskCompletionEvent.Status.SUCCEEDED) {
        int port = java.net.URI.create(e.getTaskTrackerHttp()).getPort();
        byPort.computeIfAbsent(port, p -> new ArrayList<>()).add(e.getTaskAttemptId().toString());
      }
    }
    return byPort;
  }

  private static List<String> succeededMaps(Job job, int count) throws Exception {
    long deadline = System.currentTimeMillis() + 300_000;
    while (System.currentTimeMillis() < deadline) {
      List<String> ok = new ArrayList<>();
      for (TaskCompletionEvent e : job.getTaskCompletionEvents(0, 1000)) {
        if (e.isMapTask() && e.getStatus() == TaskCompletionEvent.Status.SUCCEEDED) {
          ok.add(e.getTaskAttemptId().toString());
        }
      }
      if (ok.size() >= count) {
        return ok;
      }
      if (job.isComplete()) {
        fail("job ended before its maps were seen: " + job.getStatus());
      }
      Thread.sleep(50);
    }
    throw new AssertionError("maps did not finish");
  }

  @Test
  @Order(7)
  void aCorruptMapOutputIsAFetchFailureAndTheMapRunsAgain() throws Exception {
    byte[] expected = cluster.output(output("wordcount", false));
    Job job =
        wordCount(
            cluster,
            "wordcount-corrupt",
            true,
            words,
            3,
            c -> {
              c.setFloat(MRJobConfig.COMPLETED_MAPS_FOR_REDUCE_SLOWSTART, 1.0f);
              c.setLong(MRJobConfig.MAX_SHUFFLE_FETCH_RETRY_DELAY, 500);
            });
    job.submit();
    List<String> maps = succeededMaps(job, 4);
    String victim = maps.get(0);
    File out = findMapOutput(victim);
    corruptEveryPartition(out);
    run(job);
    Counters c = job.getCounters();
    boolean rerun = false;
    boolean aReducerFailed = false;
    for (TaskCompletionEvent e : job.getTaskCompletionEvents(0, 1000)) {
      aReducerFailed |= !e.isMapTask() && e.getStatus() != TaskCompletionEvent.Status.SUCCEEDED;
      String id = e.getTaskAttemptId().toString();
      if (e.isMapTask()
          && !id.equals(victim)
          && id.startsWith(victim.substring(0, victim.length() - 1))
          && e.getStatus() == TaskCompletionEvent.Status.SUCCEEDED) {
        rerun = true;
      }
    }
    assertTrue(rerun, "map " + victim + " ran again");
    // a reducer attempt that failed (too many fetch failures on a slow machine) takes its counters
    // with it; the map's re-run is then the evidence, as in the single-reducer case below
    assertTrue(
        aReducerFailed || c.findCounter(RdmaShuffleCounter.READ_FAILURES).getValue() >= 1,
        "the checksum mismatch was reported as a fetch failure");
    assertArrayEquals(expected, cluster.output(output("wordcount-corrupt", true)));
  }

  @Test
  @Order(8)
  void mapOutputsTheNodesCantRegisterAreFetchedOverHttpAndNoMapRunsAgain() throws Exception {
    byte[] expected = cluster.output(output("wordcount", false));
    REFUSING.refuse(true);
    Job job;
    try {
      job = run(wordCount(cluster, "wordcount-unregistered", true, words, 3, c -> {}));
    } finally {
      REFUSING.refuse(false);
    }
    Counters c = job.getCounters();
    assertTrue(REFUSING.refused.get() > 0, "the nodes tried to register map outputs");
    assertEquals(0, c.findCounter(RdmaShuffleCounter.MAPS_READ).getValue());
    assertEquals(0, c.findCounter(RdmaShuffleCounter.READ_FAILURES).getValue());
    assertTrue(
        c.findCounter(RdmaShuffleCounter.FALLBACK_FETCHES).getValue() >= 3,
        "every reducer fetched over HTTP");
    assertEquals(
        0,
        c.findCounter(RdmaShuffleCounter.FALLBACK_NODES).getValue(),
        "unavailable outputs go over HTTP map by map; no node is given up");
    assertEquals(
        4,
        c.findCounter(org.apache.hadoop.mapreduce.JobCounter.TOTAL_LAUNCHED_MAPS).getValue(),
        "no map ran again");
    assertArrayEquals(expected, cluster.output(output("wordcount-unregistered", true)));
  }

  // full tier: the ci tier's corrupt map output case (Order 7) proves the same
  // fetch failure and re-run with several reducers
  @EnabledIfSystemProperty(named = "rdmashuffle.tier", matches = "full")
  @Test
  @Order(9)
  void withOneReducerACorruptPartitionMakesTheMapRunAgainAndTheOutputIsStocks() throws Exception {
    java.util.function.Consumer<Configuration> tweak =
        c -> {
          c.setFloat(MRJobConfig.COMPLETED_MAPS_FOR_REDUCE_SLOWSTART, 1.0f);
          c.setLong(MRJobConfig.MAX_SHUFFLE_FETCH_RETRY_DELAY, 500);
        };
    run(wordCount(cluster, "wordcount-one-reducer", false, words, 1, tweak));
    byte[] expected = cluster.output(output("wordcount-one-reducer", false));
    Job job = wordCount(cluster, "wordcount-one-reducer", true, words, 1, tweak);
    job.submit();
    String victim = succeededMaps(job, 4).get(0);
    corruptEveryPartition(findMapOutput(victim));
    run(job);
    // the AM re-runs a map once enough fetch failures of it were reported (3 by default): with
    // one reducer all of them come from that reducer, which must put the map back and try it
    // again, as Hadoop's Fetcher does (a reducer that dropped it would wait for it forever). The
    // reducer's failed attempts' counters don't reach the job's, so the re-run is the evidence.
    boolean rerun = false;
    for (TaskCompletionEvent e : job.getTaskCompletionEvents(0, 1000)) {
      String id = e.getTaskAttemptId().toString();
      if (e.isMapTask()
          && !id.equals(victim)
          && id.startsWith(victim.substring(0, victim.length() - 1))
          && e.getStatus() == TaskCompletionEvent.Status.SUCCEEDED) {
        rerun = true;
      }
    }
    assertTrue(rerun, "map " + victim + " ran again");
    assertArrayEquals(expected, cluster.output(output("wordcount-one-reducer", true)));
  }

  private static File findMapOutput(String attempt) throws Exception {
    for (int nm = 0; nm < 2; nm++) {
      for (File dir : cluster.localDirs(nm)) {
        try (Stream<java.nio.file.Path> s = Files.walk(dir.toPath())) {
          java.util.Optional<java.nio.file.Path> f =
              s.filter(
                      p ->
                          p.getFileName().toString().equals("file.out")
                              && p.getParent().getFileName().toString().equals(attempt))
                  .findFirst();
          if (f.isPresent()) {
            return f.get().toFile();
          }
        }
      }
    }
    throw new AssertionError("no file.out of " + attempt);
  }

  /** Flips a byte in the middle of each non-trivial partition of a map's output. */
  private static void corruptEveryPartition(File out) throws Exception {
    SpillRecord index =
        new SpillRecord(
            new Path(new File(out.getParentFile(), "file.out.index").getPath()), new JobConf());
    try (RandomAccessFile f = new RandomAccessFile(out, "rw")) {
      for (int p = 0; p < index.size(); p++) {
        IndexRecord r = index.getIndex(p);
        if (r.partLength > 32) {
          long at = r.startOffset + r.partLength / 2;
          f.seek(at);
          int b = f.read();
          f.seek(at);
          f.write(b ^ 0x5a);
        }
      }
    }
  }
}
