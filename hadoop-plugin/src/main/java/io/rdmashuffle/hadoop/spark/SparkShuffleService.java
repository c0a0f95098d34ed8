/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.spark;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.hadoop.ApplicationEnd;
import io.rdmashuffle.hadoop.HadoopConf;
import io.rdmashuffle.hadoop.NodeServiceAddress;
import io.rdmashuffle.node.NodeRuntime;
import io.rdmashuffle.serve.ServingMetrics;
import io.rdmashuffle.spark.SparkTransportSecret;
import java.io.File;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.api.ApplicationInitializationContext;
import org.apache.hadoop.yarn.server.api.ApplicationTerminationContext;
import org.apache.hadoop.yarn.server.api.AuxiliaryService;
import org.apache.hadoop.yarn.server.api.ContainerInitializationContext;
import org.apache.hadoop.yarn.server.api.ContainerTerminationContext;
import org.apache.spark.network.TransportContext;
import org.apache.spark.network.crypto.AuthServerBootstrap;
import org.apache.spark.network.sasl.ShuffleSecretManager;
import org.apache.spark.network.server.OneForOneStreamManager;
import org.apache.spark.network.server.TransportServer;
import org.apache.spark.network.server.TransportServerBootstrap;
import org.apache.spark.network.shuffle.ExternalBlockHandler;
import org.apache.spark.network.util.TransportConf;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * rdma-shuffle's NodeManager service for Spark on YARN with dynamic allocation, registered under
 * the name Spark expects ({@code spark_shuffle}, {@code
 * yarn.nodemanager.aux-services.spark_shuffle.class}). It runs two servers for the same executors:
 *
 * <ul>
 *   <li>Spark's own external shuffle handler ({@link ExternalBlockHandler}) on {@code
 *       spark.shuffle.service.port}: executors register there (their local dirs), and readers that
 *       can't use our transport fetch the stock way, as from Spark's own service; with {@code
 *       spark.authenticate=true}, Spark's authentication with each application's secret. With a
 *       recovery dir its registrations are kept in Spark's LevelDB database.
 *   <li>rdma-shuffle's {@link NodeRuntime} on {@code spark.shuffle.rdma.nodeService.port}: the
 *       owner executors name in their map statuses. It finds a map output in the local dirs of the
 *       executors that registered ({@link SparkMapOutputs}), registers it when first asked for,
 *       within {@code serve.maxOpenOutputs} and {@code serve.maxPinnedBytes}, and answers where to
 *       READ it, whether or not the executor that wrote it still runs.
 * </ul>
 *
 * An application is admitted when its first container starts here ({@link #initializeApplication}:
 * Spark hands its secret to the service, from which both sides derive the transport's, {@link
 * SparkTransportSecret}), and withdrawn when it ends. With NodeManager recovery, applications and
 * executors are kept ({@link SparkServiceState}) and served again after a restart.
 */
public class SparkShuffleService extends AuxiliaryService {
  private static final Logger LOG = LoggerFactory.getLogger(SparkShuffleService.class);
  public static final String NAME = "spark_shuffle";

  /** Spark's recovery database of registered executors, in the recovery dir. */
  static final String EXECUTORS_DB = "registeredExecutors.ldb";

  private SparkExecutors executors;
  private NodeRuntime runtime;
  private ExternalBlockHandler blockHandler;
  private TransportContext sparkTransport;
  private TransportServer server;
  private ShuffleSecretManager secretManager;

  public SparkShuffleService() {
    super(NAME);
  }

  @Override
  protected void serviceInit(Configuration conf) throws Exception {
    RdmaConf settings = SparkServiceSettings.rdma(conf);
    TransportConf transportConf = SparkServiceSettings.transport(conf);
    // the NodeManager hands a local path, with or without a file: scheme
    Path recovery = getRecoveryPath() == null ? null : Path.of(getRecoveryPath().toUri().getPath());
    List<Path> localDirs = new ArrayList<>();
    for (String d : conf.getTrimmedStringCollection(YarnConfiguration.NM_LOCAL_DIRS)) {
      localDirs.add(Path.of(d.startsWith("file:") ? java.net.URI.create(d).getPath() : d));
    }
    executors =
        new SparkExecutors(localDirs, recovery == null ? null : new SparkServiceState(recovery));
    List<SparkExecutors.Application> recovered = executors.recover();
    boolean ownersChecked = HadoopConf.containersRunAsTheirUsers(conf);
    runtime =
        NodeRuntime.start(
            NodeServiceAddress.serving(new NodeRuntime.Context(), HadoopConf.localHost())
                .conf(settings)
                .serving(new SparkMapOutputs(executors, ownersChecked)));
    String loopback =
        NodeServiceAddress.loopbackWarning(
            runtime.transport().localAddress().host(), conf.get(YarnConfiguration.RM_HOSTNAME));
    if (loopback != null) {
      LOG.warn(loopback);
    }
    try {
      File db = recovery == null ? null : recovery.resolve(EXECUTORS_DB).toFile();
      blockHandler =
          new ExternalBlockHandler(
              new OneForOneStreamManager(),
              new RecordingBlockResolver(transportConf, db, executors));
      List<TransportServerBootstrap> bootstraps = new ArrayList<>();
      if (conf.getBoolean(SparkServiceSettings.AUTHENTICATE, false)) {
        secretManager = new ShuffleSecretManager();
        bootstraps.add(new AuthServerBootstrap(transportConf, secretManager));
      }
      for (SparkExecutors.Application a : recovered) {
        admit(a);
      }
      sparkTransport = new TransportContext(transportConf, blockHandler, true);
      int port = conf.getInt(SparkServiceSettings.PORT, SparkServiceSettings.DEFAULT_PORT);
      server = sparkTransport.createServer(port, bootstraps);
      LOG.info(
          "rdma-shuffle Spark service: Spark's shuffle service on port {} (authentication"
              + " {}), rdma-shuffle's {} at {}, {} applications and {} executors recovered",
          server.getPort(),
          secretManager != null ? "on" : "off",
          runtime.transport().kind(),
          runtime.transport().localAddress(),
          recovered.size(),
          executors.size());
    } catch (Exception e) {
      closeAll();
      throw e;
    }
    super.serviceInit(conf);
  }

  @Override
  public void initializeApplication(ApplicationInitializationContext context) {
    String app = context.getApplicationId().toString();
    ByteBuffer data = context.getApplicationDataForService();
    String secret =
        data == null || !data.hasRemaining()
            ? null
            : StandardCharsets.UTF_8.decode(data.duplicate()).toString();
    SparkExecutors.Application a = new SparkExecutors.Application(app, context.getUser(), secret);
    executors.addApplication(a);
    admit(a);
    LOG.info("rdma-shuffle Spark service: serving application {} of {}", app, context.getUser());
  }

  private void admit(SparkExecutors.Application a) {
    if (secretManager != null && a.sparkSecret() != null) {
      secretManager.registerApp(a.id(), a.sparkSecret());
    }
    runtime.catalog().admit(a.id(), SparkTransportSecret.derive(a.id(), a.sparkSecret()));
  }

  @Override
  public void stopApplication(ApplicationTerminationContext context) {
    String app = context.getApplicationId().toString();
    try {
      if (secretManager != null) {
        secretManager.unregisterApp(app);
      }
      // YARN deletes the application's local dirs itself
      blockHandler.applicationRemoved(app, false);
    } finally {
      runtime.catalog().withdraw(app);
      executors.removeApplication(app);
    }
    LOG.info(
        "rdma-shuffle Spark service: application {} ended; served so far: {}; after its"
            + " withdrawal: {}",
        app,
        servingMetrics(),
        ApplicationEnd.of(runtime, app));
  }

  @Override
  public void initializeContainer(ContainerInitializationContext context) {}

  @Override
  public void stopContainer(ContainerTerminationContext context) {}

  /** Spark's executors expect no metadata from their shuffle service. */
  @Override
  public ByteBuffer getMetaData() {
    return ByteBuffer.allocate(0);
  }

  /** The serving side's counters (locate answers by outcome, registrations, evictions). */
  public Map<String, Long> servingMetrics() {
    NodeRuntime r = runtime;
    return (r == null ? new ServingMetrics() : r.catalog().metrics()).snapshot();
  }

  NodeRuntime runtime() {
    return runtime;
  }

  SparkExecutors executors() {
    return executors;
  }

  @Override
  protected void serviceStop() throws Exception {
    closeAll();
    super.serviceStop();
  }

  private void closeAll() {
    try {
      if (server != null) {
        server.close();
      }
      if (sparkTransport != null) {
        sparkTransport.close();
      }
      if (blockHandler != null) {
        blockHandler.close();
      }
    } finally {
      if (runtime != null) {
        runtime.close();
      }
    }
  }
}
