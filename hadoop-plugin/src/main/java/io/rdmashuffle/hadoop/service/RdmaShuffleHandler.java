/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.service;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.hadoop.ApplicationEnd;
import io.rdmashuffle.hadoop.HadoopConf;
import io.rdmashuffle.hadoop.HadoopVersions;
import io.rdmashuffle.hadoop.JobSecrets;
import io.rdmashuffle.hadoop.MapOutputsRequest;
import io.rdmashuffle.hadoop.NodeServiceAddress;
import io.rdmashuffle.mapoutput.LocateLayout;
import io.rdmashuffle.mapoutput.LocateRequest;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.node.NodeRuntime;
import io.rdmashuffle.node.TransportSelector;
import io.rdmashuffle.serve.OutputCatalog;
import java.io.IOException;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import javax.crypto.SecretKey;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.ShuffleChannelHandlerContext;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.api.ApplicationInitializationContext;
import org.apache.hadoop.yarn.server.api.ApplicationTerminationContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NodeManager auxiliary service: the stock {@link ShuffleHandler}, registered under its name
 * {@code mapreduce_shuffle} (so it receives every job's token and the MapReduce AM finds its port),
 * that also serves map outputs to one-sided READs through the engine-neutral serving core.
 *
 * <p>The core ({@link NodeRuntime}) brings up the transport and the catalog of served outputs; this
 * class only tells it where MapReduce outputs lie ({@link MapReduceOutputs}) and which jobs are
 * admitted: a job from {@code initializeApplication} (its secret derived from the job token) to
 * {@code stopApplication}, which also deregisters its outputs. A reduce task asks where to READ on
 * the stock shuffle's port ({@link MapOutputsRequest}: the core's {@link LocateRequest} in the URL,
 * signed with the job token's HMAC as the stock shuffle checks it; the answer is the core's {@code
 * LocateAnswer} with the stock reply hash). Outputs are registered when first asked for, within
 * {@code serve.maxOpenOutputs} and {@code serve.maxPinnedBytes}; one that can't be registered is
 * answered "unavailable" and the reducer fetches it over HTTP. Everything else the stock handler
 * did, it still does.
 *
 * <p>Settings ({@code mapreduce.shuffle.rdma.*} in yarn-site.xml) are read at init; a bad value
 * fails the service's start, with a message naming the key and the value.
 */
public class RdmaShuffleHandler extends ShuffleHandler {
  private static final Logger LOG = LoggerFactory.getLogger(RdmaShuffleHandler.class);
  private static volatile Consumer<RdmaShuffleHandler> afterAnswer;
  private static volatile TransportSelector selector;

  private final TransportMetrics metrics = new TransportMetrics();
  private final RefusedLocates refusedLocates = new RefusedLocates(metrics);
  private final ShuffleKeyLength shuffleKeys = new ShuffleKeyLength();
  private final AtomicInteger answered = new AtomicInteger();
  private RdmaConf rdmaConf;

  /** Whether map outputs must belong to their job's user (containers run as it). */
  private boolean ownersChecked;

  private volatile ShuffleChannelHandlerContext handlerContext;
  private volatile NodeRuntime runtime;

  /**
   * Until the service has started, and from when it stops: locate requests are told to come back
   * later (a NodeManager restarting), not that this node serves no READs.
   */
  private volatile boolean transitioning = true;

  private volatile LocateAnswerThreads answering;

  public RdmaShuffleHandler() {
    super();
  }

  static {
    // before anything of the stock handler runs: on 3.3 its Netty 3 internals don't fit ours
    HadoopVersions.requireSupported("the rdma-shuffle NodeManager service");
  }

  @Override
  protected void serviceInit(Configuration conf) throws Exception {
    rdmaConf = HadoopConf.load(conf);
    ownersChecked = HadoopConf.containersRunAsTheirUsers(conf);
    ShuffleKeyLength.checkConfigured(
        conf.getInt(ShuffleKeyLength.KEY, ShuffleKeyLength.HADOOP_DEFAULT_BITS));
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
    answering = new LocateAnswerThreads(rdmaConf);
    startServing();
    transitioning = false;
  }

  /**
   * Serves READs again after {@link #stopServingReads()}: a new runtime (new address, new
   * registrations); the jobs the service knows are admitted again. Idempotent.
   */
  public synchronized void startServingReads() throws IOException {
    if (runtime == null) {
      startServing();
    }
  }

  private synchronized void startServing() throws IOException {
    TransportSelector s = selector;
    NodeRuntime.Context c =
        NodeServiceAddress.serving(new NodeRuntime.Context(), HadoopConf.localHost())
            .conf(rdmaConf)
            .metrics(metrics)
            .serving(
                new MapReduceOutputs(
                    getAuxiliaryLocalPathHandler(),
                    userRsrc::get,
                    job -> ownersChecked ? userRsrc.get(job) : null));
    if (s != null) {
      c.selector(s);
    }
    NodeRuntime r = NodeRuntime.start(c);
    String loopback =
        NodeServiceAddress.loopbackWarning(
            r.transport().localAddress().host(), getConfig().get(YarnConfiguration.RM_HOSTNAME));
    if (loopback != null) {
      LOG.warn(loopback);
    }
    for (String job : userRsrc.keySet()) {
      admit(r.catalog(), job);
    }
    runtime = r;
    LOG.info(
        "rdma-shuffle serves map outputs to READs over {} at {}; locate requests on the"
            + " shuffle port {}",
        r.transport().kind().name().toLowerCase(Locale.ROOT),
        r.transport().localAddress(),
        ShuffleHandlerShim.port(handlerContext));
  }

  /**
   * Stops serving READs (the transport, every registration) while the stock HTTP shuffle goes on:
   * from now on reduce tasks fetch this node's outputs over HTTP, as after a lost RDMA device.
   * READs in flight fail. Idempotent; the service's stop calls it too.
   */
  public void stopServingReads() {
    if (closeRuntime()) {
      LOG.warn("rdma-shuffle stopped serving READs; reduce tasks fetch from this node over HTTP");
    }
  }

  private synchronized boolean closeRuntime() {
    NodeRuntime r = runtime;
    runtime = null;
    if (r == null) {
      return false;
    }
    r.close();
    return true;
  }

  @Override
  protected void serviceStop() throws Exception {
    transitioning = true;
    try {
      if (closeRuntime()) {
        LOG.info("rdma-shuffle stopped serving READs: the service stops ({})", metrics.snapshot());
      }
      LocateAnswerThreads a = answering;
      if (a != null) {
        a.shutdownNow();
      }
    } finally {
      super.serviceStop();
    }
  }

  @Override
  public void initializeApplication(ApplicationInitializationContext context) {
    super.initializeApplication(context);
    String job = jobIdOf(context.getApplicationId());
    SecretKey key = tokenSecret(job);
    if (key != null) {
      shuffleKeys.checkJob(job, key.getEncoded().length);
    }
    NodeRuntime r = runtime;
    if (r != null) {
      admit(r.catalog(), job);
    }
  }

  @Override
  public void stopApplication(ApplicationTerminationContext context) {
    super.stopApplication(context);
    NodeRuntime r = runtime;
    if (r != null) {
      String job = jobIdOf(context.getApplicationId());
      // one place for every engine: the catalog's withdrawal tells the transport (NodeRuntime)
      r.catalog().withdraw(job);
      LOG.info(
          "rdma-shuffle MapReduce service: job {} ended; after its withdrawal: {}",
          job,
          ApplicationEnd.of(r, job));
    }
  }

  /** Admits {@code job} when the service knows its token; returns whether it is admitted. */
  private boolean admit(OutputCatalog catalog, String job) {
    SecretKey key = tokenSecret(job);
    if (key == null) {
      return false;
    }
    catalog.admit(job, JobSecrets.transportSecret(key.getEncoded(), job));
    if (tokenSecret(job) == null) {
      // the job ended while it was being admitted: its stopApplication may have withdrawn it
      // before the admission, so withdraw again
      catalog.withdraw(job);
      return false;
    }
    return catalog.isAdmitted(job);
  }

  /** The MapReduce job of a YARN application, as the stock handler names it. */
  static String jobIdOf(ApplicationId app) {
    return new org.apache.hadoop.mapred.JobID(Long.toString(app.getClusterTimestamp()), app.getId())
        .toString();
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

  /**
   * Runs an answer on the service's own threads ({@link LocateAnswerThreads}).
   *
   * @return false when the answer queue is full (the request should come back later)
   * @throws RejectedExecutionException when the service is not running
   */
  boolean answerLater(Runnable task) {
    LocateAnswerThreads a = answering;
    if (a == null) {
      throw new RejectedExecutionException("not started");
    }
    return a.answerLater(task);
  }

  /** Counters of this node's transport (bytes and READs served, failures, registered memory). */
  public TransportMetrics transportMetrics() {
    return metrics;
  }

  /** Locate requests answered (any status). */
  public int answeredRequests() {
    return answered.get();
  }

  /** Map outputs registered now. */
  public long registeredOutputs() {
    NodeRuntime r = runtime;
    return r == null ? 0 : r.catalog().metrics().openOutputs();
  }

  /** Tests: called after each answer is built, on the thread that built it. */
  public static void afterAnswer(Consumer<RdmaShuffleHandler> hook) {
    afterAnswer = hook;
  }

  /** Tests: how services started from now on start their transport (null: the standard way). */
  public static void transportSelector(TransportSelector s) {
    selector = s;
  }

  /** Builds the answer to a parsed request; runs on an answering thread. Never throws. */
  MapOutputsRequestHandler.Response answer(MapOutputsRequestHandler.Request request) {
    try {
      return answerChecked(request);
    } catch (RuntimeException e) {
      LOG.error("answering a locate request for {} failed", request.jobId(), e);
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
    if (transitioning && runtime == null) {
      return MapOutputsRequestHandler.Response.comeBackLater();
    }
    SecretKey key = tokenSecret(req.jobId());
    if (key == null) {
      return refuse(req, "unknown job");
    }
    String reply;
    try {
      reply = verify(req, key);
    } catch (IOException e) {
      return refuse(req, e.getMessage());
    }
    NodeRuntime r = runtime;
    if (r == null || !admit(r.catalog(), req.jobId())) {
      return new MapOutputsRequestHandler.Response(
          HttpResponseStatus.SERVICE_UNAVAILABLE,
          "rdma-shuffle is not serving READs on this node\n".getBytes(StandardCharsets.UTF_8),
          "text/plain; charset=UTF-8",
          reply);
    }
    ByteBuffer answer = LocateLayout.encode(r.locator().answer(req.jobId(), req.locate()));
    byte[] body = new byte[answer.remaining()];
    answer.get(body);
    return new MapOutputsRequestHandler.Response(
        HttpResponseStatus.OK, body, MapOutputsRequest.CONTENT_TYPE, reply);
  }

  /** One answer for every request that proved nothing: which cause it was is not told. */
  private MapOutputsRequestHandler.Response refuse(
      MapOutputsRequestHandler.Request req, String why) {
    refusedLocates.refused(req.jobId(), why);
    return MapOutputsRequestHandler.Response.error(
        HttpResponseStatus.UNAUTHORIZED, RefusedLocates.ANSWER);
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
}
