/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.testing;

import io.rdmashuffle.hadoop.service.RdmaShuffleHandler;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.yarn.server.api.ApplicationInitializationContext;
import org.apache.hadoop.yarn.server.api.ApplicationTerminationContext;
import org.apache.hadoop.yarn.server.api.AuxiliaryService;
import org.apache.hadoop.yarn.server.api.ContainerInitializationContext;
import org.apache.hadoop.yarn.server.api.ContainerTerminationContext;

/**
 * The NodeManager's {@code mapreduce_shuffle} service as a NodeManager restart with recovery sees
 * it: an {@link RdmaShuffleHandler} that a test stops and replaces by a new instance on the same
 * shuffle port with the same recovery directory, which recovers the jobs (their tokens and users)
 * the old one stored there, as the restarted NodeManager's new service would.
 *
 * <p>MiniYARNCluster can't restart a NodeManager with recovery (it binds NodeManagers to ephemeral
 * ports, which NodeManager recovery refuses), so its NodeManagers run without recovery and this
 * service gives its handler a recovery directory of its own (under target/) when the NodeManager
 * gave it none. Everything the NodeManager tells the service (its local dirs, applications,
 * containers) goes to the current handler.
 */
public final class RestartableShuffleService extends AuxiliaryService {
  private static final List<RestartableShuffleService> STARTED = new CopyOnWriteArrayList<>();

  private volatile RdmaShuffleHandler handler;
  private Configuration conf;
  private Path recovery;

  public RestartableShuffleService() {
    super(ShuffleHandler.MAPREDUCE_SHUFFLE_SERVICEID);
  }

  /** The services started in this JVM, in start order (tests clear it with {@link #forget()}). */
  public static List<RestartableShuffleService> started() {
    return STARTED;
  }

  public static void forget() {
    STARTED.clear();
  }

  /** The handler serving now (null while stopped). */
  public RdmaShuffleHandler handler() {
    return handler;
  }

  /** The shuffle port this service listens on, the same across restarts. */
  public int port() {
    return conf.getInt(ShuffleHandler.SHUFFLE_PORT_CONFIG_KEY, -1);
  }

  @Override
  protected void serviceInit(Configuration c) throws Exception {
    conf = new Configuration(c);
    recovery = getRecoveryPath();
    if (recovery == null) {
      File dir = new File("target", "shuffle-recovery");
      Files.createDirectories(dir.toPath());
      recovery =
          new Path(Files.createTempDirectory(dir.toPath(), "nm-").toAbsolutePath().toString());
    }
    handler = newHandler();
    super.serviceInit(c);
  }

  private RdmaShuffleHandler newHandler() {
    RdmaShuffleHandler h = new RdmaShuffleHandler();
    h.setRecoveryPath(recovery);
    h.setAuxiliaryLocalPathHandler(getAuxiliaryLocalPathHandler());
    h.init(conf);
    return h;
  }

  @Override
  protected void serviceStart() throws Exception {
    handler.start();
    // the port it bound: a new handler binds the same one
    conf.setInt(
        ShuffleHandler.SHUFFLE_PORT_CONFIG_KEY,
        handler.getConfig().getInt(ShuffleHandler.SHUFFLE_PORT_CONFIG_KEY, -1));
    STARTED.add(this);
    super.serviceStart();
  }

  /** Stops the handler, as the NodeManager's stop does: its port and its READs go away. */
  public synchronized void stopHandler() {
    RdmaShuffleHandler h = handler;
    handler = null;
    if (h != null) {
      h.stop();
    }
  }

  /** Starts a new handler on the same port, recovering from the same directory. */
  public synchronized void startHandler() throws IOException {
    if (handler != null) {
      return;
    }
    RdmaShuffleHandler h = newHandler();
    h.start();
    if (h.getFailureCause() != null) {
      throw new IOException("the restarted shuffle service failed", h.getFailureCause());
    }
    handler = h;
  }

  @Override
  protected void serviceStop() throws Exception {
    stopHandler();
    STARTED.remove(this);
    super.serviceStop();
  }

  @Override
  public void initializeApplication(ApplicationInitializationContext context) {
    RdmaShuffleHandler h = handler;
    if (h != null) {
      h.initializeApplication(context);
    }
  }

  @Override
  public void stopApplication(ApplicationTerminationContext context) {
    RdmaShuffleHandler h = handler;
    if (h != null) {
      h.stopApplication(context);
    }
  }

  @Override
  public void initializeContainer(ContainerInitializationContext context) {
    RdmaShuffleHandler h = handler;
    if (h != null) {
      h.initializeContainer(context);
    }
  }

  @Override
  public void stopContainer(ContainerTerminationContext context) {
    RdmaShuffleHandler h = handler;
    if (h != null) {
      h.stopContainer(context);
    }
  }

  @Override
  public ByteBuffer getMetaData() {
    return handler.getMetaData();
  }
}
