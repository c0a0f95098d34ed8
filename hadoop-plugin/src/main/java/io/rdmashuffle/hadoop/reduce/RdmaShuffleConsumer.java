/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.reduce;

import io.rdmashuffle.config.ConfigException;
import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.hadoop.HadoopConf;
import io.rdmashuffle.hadoop.HadoopVersions;
import io.rdmashuffle.hadoop.MapReduceConfig;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.crypto.SecretKey;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.MapOutputFile;
import org.apache.hadoop.mapred.RawKeyValueIterator;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapred.ShuffleConsumerPlugin;
import org.apache.hadoop.mapred.Task;
import org.apache.hadoop.mapred.TaskStatus;
import org.apache.hadoop.mapred.TaskUmbilicalProtocol;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.task.reduce.ExceptionReporter;
import org.apache.hadoop.mapreduce.task.reduce.MergeManager;
import org.apache.hadoop.mapreduce.task.reduce.MergeManagerImpl;
import org.apache.hadoop.mapreduce.task.reduce.Shuffle;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleClientMetrics;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleSchedulerImpl;
import org.apache.hadoop.util.Progress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reduce side of rdma-shuffle: a {@link ShuffleConsumerPlugin} ({@code
 * mapreduce.job.reduce.shuffle.consumer.plugin.class}) that learns map completions as the stock
 * shuffle does, copies each map output with one-sided READs from the NodeManager that ran the map,
 * and hands it to Hadoop's own merge ({@link MergeManagerImpl}: in-memory and on-disk merges,
 * counters, progress), so everything after the copy stays Hadoop's. Fetch failures are reported
 * through Hadoop's shuffle scheduler exactly as the stock fetcher reports them; nodes without a
 * usable rdma-shuffle service are fetched from over the stock HTTP shuffle, logged and counted
 * ({@link RdmaShuffleCounter}).
 *
 * <p>Jobs the transport can't serve as configured run the stock {@link Shuffle} for the whole task,
 * logged and counted: SSL shuffle (our transport does not encrypt), encrypted intermediate data,
 * and the local job runner. Settings ({@code mapreduce.shuffle.rdma.*}) are read at init; a bad
 * value fails the task with a message naming the key and the value.
 */
public class RdmaShuffleConsumer<K, V> implements ShuffleConsumerPlugin<K, V>, ExceptionReporter {
  private static final Logger LOG = LoggerFactory.getLogger(RdmaShuffleConsumer.class);
  private static final int PROGRESS_MILLIS = 2000;

  /** The stock shuffle's bounds on events per umbilical call (Shuffle.run). */
  private static final int MAX_EVENTS_TO_FETCH = 10000;

  private static final int MIN_EVENTS_TO_FETCH = 100;
  private static final int MAX_RPC_OUTSTANDING_EVENTS = 3000000;

  private ShuffleConsumerPlugin.Context<K, V> context;
  private Shuffle<K, V> stock;
  private TaskAttemptID reduceId;
  private JobConf jobConf;
  private Reporter reporter;
  private TaskUmbilicalProtocol umbilical;
  private ShuffleClientMetrics metrics;
  private ShuffleSchedulerImpl<K, V> scheduler;
  private MergeManager<K, V> merger;
  private Progress copyPhase;
  private TaskStatus taskStatus;
  private Task reduceTask;
  private ReadSide side;
  private Throwable throwable;
  private String throwingThread;

  @Override
  public void init(ShuffleConsumerPlugin.Context<K, V> ctx) {
    this.context = ctx;
    this.reduceId = ctx.getReduceId();
    this.jobConf = ctx.getJobConf();
    this.reporter = ctx.getReporter();
    RdmaConf conf = HadoopConf.load(jobConf);
    HadoopVersions.requireSupported("rdma-shuffle's reduce side");
    SchedulerPenalty.check();
    checkChunkSize(conf);
    String stockOnly = stockOnlyReason(jobConf, ctx.getLocalMapFiles());
    if (stockOnly != null) {
      LOG.warn("{} runs the stock shuffle: {}", reduceId, stockOnly);
      reporter.getCounter(RdmaShuffleCounter.STOCK_SHUFFLE_TASKS).increment(1);
      stock = new Shuffle<>();
      stock.init(ctx);
      return;
    }
    this.umbilical = ctx.getUmbilical();
    this.copyPhase = ctx.getCopyPhase();
    this.taskStatus = ctx.getStatus();
    this.reduceTask = ctx.getReduceTask();
    this.metrics = ShuffleClientMetrics.create(reduceId, jobConf);
    this.scheduler =
        new ShuffleSchedulerImpl<>(
            jobConf,
            taskStatus,
            reduceId,
            this,
            copyPhase,
            ctx.getShuffledMapsCounter(),
            ctx.getReduceShuffleBytes(),
            ctx.getFailedShuffleCounter());
    this.merger = createMergeManager(ctx);
    String jobId = reduceId.getJobID().toString();
    SecretKey secret = reduceTask.getShuffleSecret();
    MapOutputsClient client =
        new MapOutputsClient(jobConf, jobId, reduceId.getTaskID().getId(), secret);
    try {
      side =
          ReadSide.start(
              conf,
              jobId,
              reduceId.getTaskID().getId(),
              secret,
              client,
              FetchRetry.of(jobConf),
              fetchers(),
              reporter);
    } catch (IOException e) {
      throw new IllegalStateException(
          "rdma-shuffle: no transport for "
              + reduceId
              + " (and "
              + conf.keyOf(MapReduceConfig.FETCH_HTTP_FALLBACK)
              + "=false): "
              + e.getMessage(),
          e);
    }
  }

  /** Hadoop's merge, as the stock shuffle creates it. */
  protected MergeManager<K, V> createMergeManager(ShuffleConsumerPlugin.Context<K, V> ctx) {
    return new MergeManagerImpl<>(
        reduceId,
        jobConf,
        ctx.getLocalFS(),
        ctx.getLocalDirAllocator(),
        reporter,
        ctx.getCodec(),
        ctx.getCombinerClass(),
        ctx.getCombineCollector(),
        ctx.getSpilledRecordsCounter(),
        ctx.getReduceCombineInputCounter(),
        ctx.getMergedMapOutputsCounter(),
        this,
        ctx.getMergePhase(),
        ctx.getMapOutputFile());
  }

  /** Why this task must run the stock shuffle, or null. */
  static String stockOnlyReason(JobConf job, Map<?, MapOutputFile> localMapFiles) {
    if (localMapFiles != null) {
      return "the local job runner hands map outputs over in place";
    }
    if (job.getBoolean(MRConfig.SHUFFLE_SSL_ENABLED_KEY, MRConfig.SHUFFLE_SSL_ENABLED_DEFAULT)) {
      return MRConfig.SHUFFLE_SSL_ENABLED_KEY
          + "=true and rdma-shuffle's transport does not"
          + " encrypt";
    }
    if (job.getBoolean(MRJobConfig.MR_ENCRYPTED_INTERMEDIATE_DATA, false)) {
      return MRJobConfig.MR_ENCRYPTED_INTERMEDIATE_DATA + "=true is not supported yet";
    }
    return null;
  }

  private static void checkChunkSize(RdmaConf conf) {
    long chunk = conf.get(MapReduceConfig.FETCH_CHUNK_SIZE);
    long pool = conf.get(RdmaShuffleConfig.BUFFERS_CHUNK_SIZE);
    if (chunk > pool) {
      throw new ConfigException(
          conf.keyOf(MapReduceConfig.FETCH_CHUNK_SIZE)
              + "="
              + chunk
              + " bytes: must not exceed "
              + conf.keyOf(RdmaShuffleConfig.BUFFERS_CHUNK_SIZE)
              + "="
              + pool
              + " bytes");
    }
  }

  private int fetchers() {
    return Math.max(1, jobConf.getInt(MRJobConfig.SHUFFLE_PARALLEL_COPIES, 5));
  }

  @Override
  @SuppressWarnings("unchecked")
  public RawKeyValueIterator run() throws IOException, InterruptedException {
    if (stock != null) {
      return stock.run();
    }
    int eventsPerReducer =
        Math.max(MIN_EVENTS_TO_FETCH, MAX_RPC_OUTSTANDING_EVENTS / jobConf.getNumReduceTasks());
    MapCompletionEvents events =
        new MapCompletionEvents(
            (org.apache.hadoop.mapred.TaskAttemptID) reduceId,
            umbilical,
            scheduler,
            this,
            Math.min(MAX_EVENTS_TO_FETCH, eventsPerReducer));
    List<RdmaFetcher<K, V>> fetchers = new ArrayList<>();
    try {
      events.start();
      for (int i = 0; i < fetchers(); i++) {
        HttpFallbackFetcher<K, V> http =
            new HttpFallbackFetcher<>(
                jobConf,
                reduceId,
                scheduler,
                merger,
                reporter,
                metrics,
                this,
                reduceTask.getShuffleSecret());
        RdmaFetcher<K, V> f =
            new RdmaFetcher<>(i + 1, side, scheduler, merger, metrics, reporter, this, http);
        fetchers.add(f);
        f.start();
      }
      while (!scheduler.waitUntilDone(PROGRESS_MILLIS)) {
        reporter.progress();
        rethrow();
      }
    } finally {
      // the shuffle ends here, however it ends: its threads stop, then its transport and
      // buffers go (the final merge needs neither)
      try {
        events.shutDown();
        for (RdmaFetcher<K, V> f : fetchers) {
          f.shutDown();
        }
      } finally {
        logTransport();
        side.close();
      }
    }
    scheduler.close();
    copyPhase.complete();
    taskStatus.setPhase(TaskStatus.Phase.SORT);
    reduceTask.statusUpdate(umbilical);
    RawKeyValueIterator kv;
    try {
      kv = merger.close();
    } catch (Throwable e) {
      throw new IOException("error while doing final merge", e);
    }
    rethrow();
    return kv;
  }

  private synchronized void rethrow() throws IOException {
    if (throwable != null) {
      throw new IOException("error in rdma-shuffle in " + throwingThread, throwable);
    }
  }

  private void logTransport() {
    if (side != null && side.metrics() != null) {
      LOG.info("{}: rdma-shuffle transport counters {}", reduceId, side.metrics().snapshot());
    }
  }

  @Override
  public void close() {
    // the shuffle's transport and buffers went when run() ended; this is for a task that
    // failed before its shuffle ran
    if (stock != null) {
      stock.close();
    }
    if (side != null) {
      side.close();
    }
  }

  @Override
  public synchronized void reportException(Throwable t) {
    if (throwable == null) {
      throwable = t;
      throwingThread = Thread.currentThread().getName();
      // wake the task's thread, waiting on the scheduler
      synchronized (scheduler) {
        scheduler.notifyAll();
      }
    }
  }

  @Override
  public String toString() {
    return "RdmaShuffleConsumer[" + reduceId + ", " + context + "]";
  }
}
