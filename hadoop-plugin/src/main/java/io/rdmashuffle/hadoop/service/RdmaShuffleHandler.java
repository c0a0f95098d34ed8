package io.rdmashuffle.hadoop.service;

import io.rdmashuffle.hadoop.MapReduceConfig;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.hadoop.HadoopConf;
import io.rdmashuffle.hadoop.JobSecrets;
import io.rdmashuffle.hadoop.MapOutputsAnswer;
import io.rdmashuffle.hadoop.MapOutputsAnswerLayout;
import io.rdmashuffle.hadoop.MapOutputsRequest;
import io.rdmashuffle.memory.RegisteredFile;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.ApplicationSecrets;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.TransportContext;
import io.rdmashuffle.transport.TransportSelector;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URL;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import javax.crypto.SecretKey;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.SecureIOUtils;
import org.apache.hadoop.mapred.IndexRecord;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.ShuffleChannelHandlerContext;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapred.SpillRecord;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.server.api.ApplicationInitializationContext;
import org.apache.hadoop.yarn.server.api.ApplicationTerminationContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NodeManager auxiliary service: the stock {@link ShuffleHandler}, registered under its name
 * {@code mapreduce_shuffle} (so it receives every job's token and the MapReduce AM finds its port),
 * that also serves map outputs to one-sided READs.
 *
 * <p>A reduce task asks for some map outputs on the stock shuffle's port ({@link
 * MapOutputsRequest}, authenticated with the job token's HMAC as the stock shuffle checks it). The
 * service finds each output in the NodeManager's local dirs ({@link MapOutputLocator}), registers
 * it read-only on first use ({@link MapOutputRegistry}) and answers with where to READ the
 * reducer's partition ({@link MapOutputsAnswer}). The READs then go to this node's transport,
 * whose handshake proves the job's secret: a job's secret is known to the transport from
 * {@code initializeApplication} to {@code stopApplication}, and a READ may touch only regions of
 * the job it proved. Everything else the stock handler did, it still does: jobs without our
 * consumer plugin, and reducers that fall back, use the HTTP shuffle as before.
 *
 * <p>Settings ({@code mapreduce.shuffle.rdma.*} in yarn-site.xml) are read at init; a bad value
 * fails the service's start, with a message naming the key and the value.
 */
public class RdmaShuffleHandler extends ShuffleHandler {
  private static final Logger LOG = LoggerFactory.getLogger(RdmaShuffleHandler.class);
  private static volatile Consumer<RdmaShuffleHandler> afterAnswer;
  /** TTConfig.TT_INDEX_CACHE, deprecated there but still what IndexCache reads. */
  static final String INDEX_CACHE_MB = "mapreduce.tasktracker.indexcache.mb";

  private final ApplicationSecrets secrets = new ApplicationSecrets();
  private final TransportMetrics metrics = new TransportMetrics();
  private final AtomicInteger answered = new AtomicInteger();
  private RdmaConf rdmaConf;
  private JobConf jobConf;
  private volatile ShuffleChannelHandlerContext handlerContext;
  private volatile Transport transport;
  private volatile MapOutputRegistry registry;
  private volatile MapOutputLocator locator;
  private volatile ExecutorService answering;

  public RdmaShuffleHandler() {
    super();
  }

  @Override
  protected void serviceInit(Configuration conf) throws Exception {
    rdmaConf = HadoopConf.load(conf);
    jobConf = new JobConf(conf);
    super.serviceInit(conf);
  }

  @Override
  protected ShuffleChannelHandlerContext createHandlerContext() {
    ShuffleChannelHandlerContext c =
        ShuffleHandlerShim.withOurHandler(
            super.createHandlerContext(), () -> new MapOutputsRequestHandler(this));
    handlerContext = c;
    return c;
  }

  @Override
  protected void serviceStart() throws Exception {
    super.serviceStart();
    startServing();
  }

  /**
   * Serves READs again after {@link #stopServingReads()}: a new transport (new address, new
   * registrations). Idempotent.
   */
  public synchronized void startServingReads() throws IOException {
    if (transport == null) {
      startServing();
      // jobs the service knows get their secrets back
      for (String job : userRsrc.keySet()) {
        registry.admitJob(job);
      }
    }
  }

  private void startServing() throws IOException {
    Transport t = TransportSelector.standard()
        .start(new TransportContext(rdmaConf, secrets, localHost(), metrics));
    // the same bound as the stock handler's index cache (IndexCache reads this key)
    long indexBytes = (long) jobConf.getInt(INDEX_CACHE_MB, 10) << 20;
    registry = new MapOutputRegistry(t.registrar(), rdmaConf.get(RdmaShuffleConfig.PIECE_SIZE),
        rdmaConf.get(MapReduceConfig.SERVICE_MAX_REGISTERED_BYTES), indexBytes, secrets,
        this::transportSecretOf);
    locator = new MapOutputLocator(getAuxiliaryLocalPathHandler());
    if (answering == null) {
      answering = answeringThreads();
    }
    transport = t;
    LOG.info("rdma-shuffle serves map outputs to READs over {} at {}; map outputs requests on the"
            + " shuffle port {}", t.kind().name().toLowerCase(java.util.Locale.ROOT),
        t.localAddress(), ShuffleHandlerShim.port(handlerContext));
  }

  private static ExecutorService answeringThreads() {
    AtomicInteger n = new AtomicInteger();
    ThreadPoolExecutor e = new ThreadPoolExecutor(4, 4, 60, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), r -> {
          Thread t = new Thread(r, "rdma-shuffle-map-outputs-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
    e.allowCoreThreadTimeOut(true);
    return e;
  }

  /**
   * Stops serving READs (the transport, every registration) while the stock HTTP shuffle goes
   * on: from now on reduce tasks fetch this node's outputs over HTTP, as after a lost RDMA
   * device. READs in flight fail. Idempotent; the service's stop calls it too.
   */
  public synchronized void stopServingReads() {
    if (closeReads()) {
      LOG.warn("rdma-shuffle stopped serving READs; reduce tasks fetch from this node over HTTP");
    }
  }

  private synchronized boolean closeReads() {
    Transport t = transport;
    transport = null;
    MapOutputRegistry r = registry;
    if (r != null) {
      r.close();
    }
    if (t != null) {
      t.close();
      return true;
    }
    return false;
  }

  @Override
  protected void serviceStop() throws Exception {
    try {
      if (closeReads()) {
        LOG.info("rdma-shuffle stopped serving READs: the service stops ({})",
            metrics.snapshot());
      }
      ExecutorService e = answering;
      if (e != null) {
        e.shutdownNow();
      }
    } finally {
      super.serviceStop();
    }
  }

  @Override
  public void initializeApplication(ApplicationInitializationContext context) {
    super.initializeApplication(context);
    MapOutputRegistry r = registry;
    if (r != null) {
      r.admitJob(jobIdOf(context.getApplicationId()));
    }
  }

  @Override
  public void stopApplication(ApplicationTerminationContext context) {
    super.stopApplication(context);
    MapOutputRegistry r = registry;
    if (r != null) {
      r.removeJob(jobIdOf(context.getApplicationId()));
    }
  }

  /** The MapReduce job of a YARN application, as the stock handler names it. */
  static String jobIdOf(ApplicationId app) {
    return new org.apache.hadoop.mapred.JobID(
        Long.toString(app.getClusterTimestamp()), app.getId()).toString();
  }

  private byte[] transportSecretOf(String jobId) {
    SecretKey key = tokenSecret(jobId);
    return key == null ? null : JobSecrets.transportSecret(key.getEncoded(), jobId);
  }

  /** The job token's secret while the service knows the job, else null. */
  private SecretKey tokenSecret(String jobId) {
    if (secretManager == null) {
      return null;
    }
    try {
      return secretManager.retrieveTokenSecret(jobId);
    } catch (org.apache.hadoop.security.token.SecretManager.InvalidToken e) {
      return null;
    }
  }

  ExecutorService answering() {
    ExecutorService e = answering;
    if (e == null) {
      throw new java.util.concurrent.RejectedExecutionException("not started");
    }
    return e;
  }

  /** Counters of this node's transport (bytes and READs served, failures, registered memory). */
  public TransportMetrics transportMetrics() {
    return metrics;
  }

  /** Map outputs requests answered (any status). */
  public int answeredRequests() {
    return answered.get();
  }

  /** Bytes of map outputs registered now. */
  public long registeredBytes() {
    MapOutputRegistry r = registry;
    return r == null ? 0 : r.registeredBytes();
  }

  /** Tests: called after each answer is built, on the thread that built it. */
  public static void afterAnswer(Consumer<RdmaShuffleHandler> hook) {
    afterAnswer = hook;
  }

  /** Builds the answer to a parsed request; runs on an answering thread. Never throws. */
  MapOutputsRequestHandler.Response answer(MapOutputsRequestHandler.Request request) {
    try {
      return answerChecked(request);
    } catch (RuntimeException e) {
      LOG.error("answering a map outputs request for {} failed", request.jobId(), e);
      return MapOutputsRequestHandler.Response.error(
          HttpResponseStatus.INTERNAL_SERVER_ERROR, "internal error: " + e);
    } finally {
      answered.incrementAndGet();
      Consumer<RdmaShuffleHandler> hook = afterAnswer;
      if (hook != null) {
        hook.accept(this);
      }
    }
  }

  private MapOutputsRequestHandler.Response answerChecked(MapOutputsRequestHandler.Request req) {
    SecretKey key = tokenSecret(req.jobId());
    if (key == null) {
      LOG.info("refused a map outputs request for unknown job {}", req.jobId());
      return MapOutputsRequestHandler.Response.error(HttpResponseStatus.UNAUTHORIZED,
          "unknown job " + req.jobId());
    }
    String reply;
    try {
      reply = verify(req, key);
    } catch (IOException e) {
      LOG.warn("refused a map outputs request for job {}: {}", req.jobId(), e.getMessage());
      return MapOutputsRequestHandler.Response.error(HttpResponseStatus.UNAUTHORIZED,
          "request not authenticated for job " + req.jobId());
    }
    Transport t = transport;
    MapOutputRegistry r = registry;
    if (t == null || r == null || !r.admitJob(req.jobId())) {
      return new MapOutputsRequestHandler.Response(HttpResponseStatus.SERVICE_UNAVAILABLE,
          "rdma-shuffle is not serving READs on this node\n".getBytes(StandardCharsets.UTF_8),
          "text/plain; charset=UTF-8", reply);
    }
    JobID job = JobID.forName(req.jobId());
    String user = userRsrc.get(req.jobId());
    List<MapOutputsAnswer.Entry> entries = new ArrayList<>(req.maps().size());
    for (String mapId : req.maps()) {
      entries.add(entry(r, job, user, req.reduce(), mapId));
    }
    byte[] body = MapOutputsAnswerLayout.encode(
        new MapOutputsAnswer(t.kind(), req.reduce(), t.localAddress(), entries));
    return new MapOutputsRequestHandler.Response(
        HttpResponseStatus.OK, body, MapOutputsRequest.CONTENT_TYPE, reply);
  }

  /** Checks the request's UrlHash as the stock shuffle does; returns the ReplyHash. */
  private String verify(MapOutputsRequestHandler.Request req, SecretKey key) throws IOException {
    if (req.urlHash() == null) {
      throw new IOException("no " + SecureShuffleUtils.HTTP_HEADER_URL_HASH + " header");
    }
    int port = ShuffleHandlerShim.port(handlerContext);
    String msg = SecureShuffleUtils.buildMsgFrom(new URL("http", "", port, req.uri()));
    SecureShuffleUtils.verifyReply(req.urlHash(), msg, key);
    return SecureShuffleUtils.generateHash(req.urlHash().getBytes(StandardCharsets.UTF_8), key);
  }

  private MapOutputsAnswer.Entry entry(
      MapOutputRegistry r, JobID job, String user, int reduce, String mapId) {
    TaskAttemptID attempt;
    try {
      attempt = TaskAttemptID.forName(mapId);
    } catch (IllegalArgumentException e) {
      attempt = null;
    }
    if (attempt == null || !attempt.getJobID().equals(job)
        || attempt.getTaskType() != TaskType.MAP) {
      return MapOutputsAnswer.Entry.failed(mapId, MapOutputsAnswer.Status.REFUSED,
          "not a map attempt of " + job);
    }
    MapOutputRegistry.Served s;
    try {
      TaskAttemptID a = attempt;
      s = r.get(new MapOutputRegistry.Key(job.toString(), a.toString()),
          () -> load(r, job, user, a));
    } catch (NoSuchFileException e) {
      return MapOutputsAnswer.Entry.failed(mapId, MapOutputsAnswer.Status.NOT_FOUND,
          "no output of " + mapId + " on this node");
    } catch (MapOutputLocator.RefusedException e) {
      LOG.warn("refused map output {} of job {}: {}", mapId, job, e.getMessage());
      return MapOutputsAnswer.Entry.failed(mapId, MapOutputsAnswer.Status.REFUSED, e.getMessage());
    } catch (MapOutputRegistry.TooLargeException e) {
      return MapOutputsAnswer.Entry.failed(mapId, MapOutputsAnswer.Status.UNAVAILABLE,
          e.getMessage());
    } catch (IOException e) {
      LOG.warn("could not serve map output {} of job {}", mapId, job, e);
      return MapOutputsAnswer.Entry.failed(mapId, MapOutputsAnswer.Status.FAILED, e.toString());
    }
    if (reduce >= s.partitions()) {
      return MapOutputsAnswer.Entry.failed(mapId, MapOutputsAnswer.Status.REFUSED,
          "reduce=" + reduce + ": " + mapId + " wrote " + s.partitions() + " partitions");
    }
    IndexRecord rec = s.partition(reduce);
    try {
      return MapOutputsAnswer.Entry.ok(mapId, rec.startOffset, rec.rawLength, rec.partLength,
          s.data.descriptor());
    } catch (IllegalArgumentException e) {
      return MapOutputsAnswer.Entry.failed(mapId, MapOutputsAnswer.Status.FAILED,
          "index does not match file.out: " + e.getMessage());
    }
  }

  private MapOutputRegistry.Served load(
      MapOutputRegistry r, JobID job, String user, TaskAttemptID attempt) throws IOException {
    MapOutputLocator.Located at = locator.locate(job, user, attempt);
    // checksummed, and owned by the job's user when security is on: as the stock handler reads it
    SpillRecord index =
        new SpillRecord(new org.apache.hadoop.fs.Path(at.index().toString()), jobConf, user);
    SecureIOUtils.openForRandomRead(new File(at.data().toString()), "r", user, null).close();
    RegisteredFile data = RegisteredFile.open(at.data(), r.pieceSize(), r.registrar(),
        job.toString());
    return new MapOutputRegistry.Served(data, index);
  }

  private String localHost() {
    try {
      return InetAddress.getLocalHost().getCanonicalHostName();
    } catch (UnknownHostException e) {
      return "localhost";
    }
  }
}
