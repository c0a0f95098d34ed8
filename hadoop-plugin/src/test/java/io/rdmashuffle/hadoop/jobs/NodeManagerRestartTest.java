/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.jobs;

import static io.rdmashuffle.hadoop.jobs.TestJobs.*;
import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.hadoop.reduce.RdmaShuffleCounter;
import io.rdmashuffle.hadoop.service.RdmaShuffleHandler;
import io.rdmashuffle.hadoop.testing.Inputs;
import io.rdmashuffle.hadoop.testing.RdmaMiniCluster;
import io.rdmashuffle.hadoop.testing.RestartableShuffleService;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.StringTokenizer;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobCounter;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskCompletionEvent;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A NodeManager's shuffle service restarts mid-shuffle, with recovery on (issue 15): the node's
 * {@code mapreduce_shuffle} service stops while a reducer waits for its answer and a new one comes
 * up on the same port a few seconds later, recovering the job from its recovery directory. The
 * reducers wait for it (Hadoop's fetch retry, on by default with NodeManager recovery), then READ
 * every map output: no map runs again, no fetch failure, nothing over HTTP. Its own cluster, so the
 * shared ones of other tests keep their stock services.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class NodeManagerRestartTest {
  private static final int MAPS = 4;
  private static final int REDUCERS = 2;
  private static final long DOWN_MILLIS = 4000;

  private static RdmaMiniCluster cluster;
  private static Path words;

  @BeforeAll
  static void start() throws Exception {
    RestartableShuffleService.forget();
    cluster = RdmaMiniCluster.start("NodeManagerRestartTest", 2, RestartableShuffleService.class);
    words = Inputs.words(cluster.fs(), cluster.path("words"), MAPS, 300_000, 3000, 7);
  }

  @AfterAll
  static void stop() {
    RdmaShuffleHandler.afterAnswer(null);
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void reducersWaitForARestartedShuffleServiceAndNoMapRunsAgain() throws Exception {
    AtomicBoolean fired = new AtomicBoolean();
    AtomicReference<RestartableShuffleService> victim = new AtomicReference<>();
    AtomicReference<Throwable> restartFailure = new AtomicReference<>();
    // the first locate request a node answers: before its answer leaves, the node's service stops
    // (the reducer gets no answer; every request and READ connection is refused from now on) and
    // comes back DOWN_MILLIS later
    RdmaShuffleHandler.afterAnswer(
        h -> {
          if (!fired.compareAndSet(false, true)) {
            return;
          }
          RestartableShuffleService s =
              RestartableShuffleService.started().stream()
                  .filter(x -> x.handler() == h)
                  .findFirst()
                  .orElseThrow();
          victim.set(s);
          s.stopHandler();
          Thread restart =
              new Thread(
                  () -> {
                    try {
                      Thread.sleep(DOWN_MILLIS);
                      s.startHandler();
                    } catch (Throwable t) {
                      restartFailure.set(t);
                    }
                  },
                  "shuffle-service-restart");
          restart.setDaemon(true);
          restart.start();
        });
    Job job;
    long started = System.nanoTime();
    try {
      job =
          run(
              wordCount(
                  cluster,
                  "wordcount-nm-restart",
                  true,
                  words,
                  REDUCERS,
                  c -> {
                    // reducers start when every map is done: each map runs exactly once
                    c.setFloat(MRJobConfig.COMPLETED_MAPS_FOR_REDUCE_SLOWSTART, 1.0f);
                    // as yarn-site.xml tells a job on a cluster with recovery on; fetch retry
                    // follows it by default
                    c.setBoolean(YarnConfiguration.NM_RECOVERY_ENABLED, true);
                    c.setInt(MRJobConfig.SHUFFLE_FETCH_RETRY_INTERVAL_MS, 500);
                    c.setInt(MRJobConfig.SHUFFLE_FETCH_RETRY_TIMEOUT_MS, 60_000);
                  }));
    } finally {
      RdmaShuffleHandler.afterAnswer(null);
    }
    long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
    assertTrue(fired.get(), "a node answered a locate request");
    assertNull(restartFailure.get(), () -> "restart failed: " + restartFailure.get());
    RdmaShuffleHandler restarted = victim.get().handler();
    assertNotNull(restarted, "the service came back");
    assertTrue(
        restarted.answeredRequests() > 0,
        "the restarted service answered the reducers that waited for it");
    assertTrue(seconds * 1000 > DOWN_MILLIS, "the job outlasted the restart: " + seconds + " s");

    Counters c = job.getCounters();
    assertAllRead(c);
    assertTrue(
        c.findCounter(RdmaShuffleCounter.NODE_RETRIES).getValue() >= 1,
        "a reducer waited for the restarting node");
    assertEquals(0, c.findCounter(RdmaShuffleCounter.READ_FAILURES).getValue(), "fetch failures");
    assertEquals(0, c.findCounter(RdmaShuffleCounter.READ_RETRIED_OVER_HTTP).getValue());
    assertEquals(MAPS, c.findCounter(JobCounter.TOTAL_LAUNCHED_MAPS).getValue(), "map re-runs");
    assertEquals(REDUCERS, c.findCounter(JobCounter.TOTAL_LAUNCHED_REDUCES).getValue());
    int maps = 0;
    for (TaskCompletionEvent e : job.getTaskCompletionEvents(0, 1000)) {
      if (e.isMapTask()) {
        assertEquals(TaskCompletionEvent.Status.SUCCEEDED, e.getStatus(), e.toString());
        assertEquals(0, e.getTaskAttemptId().getId(), "first attempt: " + e);
        maps++;
      }
    }
    assertEquals(MAPS, maps, "one completion event per map, none made obsolete");

    assertArrayEquals(
        expectedWordCount(),
        cluster.output(cluster.path("wordcount-nm-restart-ours")),
        "output differs from the word count computed here");
  }

  /**
   * What word count writes for the input, computed here: each word's count, in the part file of its
   * hash partition, in Text's byte order.
   */
  private static byte[] expectedWordCount() throws Exception {
    Map<Text, Integer> counts = new TreeMap<>();
    for (FileStatus f : cluster.fs().listStatus(words)) {
      try (InputStream in = cluster.fs().open(f.getPath())) {
        StringTokenizer t =
            new StringTokenizer(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        while (t.hasMoreTokens()) {
          counts.merge(new Text(t.nextToken()), 1, Integer::sum);
        }
      }
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int part = 0; part < REDUCERS; part++) {
      for (Map.Entry<Text, Integer> e : counts.entrySet()) {
        if ((e.getKey().hashCode() & Integer.MAX_VALUE) % REDUCERS == part) {
          out.write((e.getKey() + "\t" + e.getValue() + "\n").getBytes(StandardCharsets.UTF_8));
        }
      }
    }
    assertTrue(out.size() > 1000);
    return out.toByteArray();
  }
}
