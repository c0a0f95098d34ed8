/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package org.apache.spark.shuffle.rdma;

import io.rdmashuffle.config.RdmaConf;
import java.util.function.IntSupplier;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one {@link SparkNode} of this process, kept for {@link RdmaShuffleManager}: started once, by
 * the first task that needs it or eagerly on an executor's own thread, and closed by the manager's
 * stop; when no transport can start here, the cause instead (remembered: it is not tried again).
 */
final class ProcessNode {
  // logged under the manager's name, as before this class was split out of it
  private static final Logger LOG = LoggerFactory.getLogger(RdmaShuffleManager.class);

  private static final long EAGER_START_WAIT_NANOS = 120_000_000_000L;

  private final SparkConf conf;
  private final RdmaConf settings;

  /** Whether the NodeManager's Spark service serves this executor's map outputs. */
  private final boolean nodeService;

  /** Tasks this process runs at once (see {@link ExecutorCores}). */
  private final IntSupplier cores;

  /** Run after every start attempt that got as far as trying (the manager's metrics source). */
  private final Runnable afterStart;

  private final Object lock = new Object();
  private volatile SparkNode node;
  private volatile String unavailable;
  private volatile boolean stopped;

  ProcessNode(
      SparkConf conf,
      RdmaConf settings,
      boolean nodeService,
      IntSupplier cores,
      Runnable afterStart) {
    this.conf = conf;
    this.settings = settings;
    this.nodeService = nodeService;
    this.cores = cores;
    this.afterStart = afterStart;
  }

  /** The node, started on first use; null when no transport can run here (see {@link #cause}). */
  SparkNode start() {
    SparkNode n = node;
    if (n != null) {
      return n;
    }
    synchronized (lock) {
      if (node != null || unavailable != null) {
        return node;
      }
      if (stopped) {
        unavailable = "the shuffle manager was stopped";
        return null;
      }
      SparkEnv env = SparkEnv.get();
      String application = env.conf().getAppId();
      try {
        node =
            SparkNode.start(
                SparkSettings.forExecutor(conf, settings, cores.getAsInt()),
                application,
                SparkSettings.secret(env.securityManager(), application),
                env.blockManager().blockManagerId().host(),
                nodeService);
      } catch (Exception e) {
        unavailable = e.getMessage() == null ? e.toString() : e.getMessage();
        LOG.warn("rdma-shuffle: no transport can start in this process: {}", unavailable);
        LOG.debug("transport start failure", e);
      }
      if (node != null) {
        String warning = SparkSettings.overheadWarning(conf, node.conf(), node.pinsServedOutputs());
        if (warning != null) {
          LOG.warn("rdma-shuffle: {}", warning);
        }
      }
      afterStart.run();
      return node;
    }
  }

  /**
   * An executor starts its node as soon as Spark's environment is there, on a thread of its own,
   * probing only the transport its settings choose: its first map task's commit then finds the node
   * up instead of starting it (and every other task of the executor waiting for that).
   */
  void startEagerly() {
    Thread t =
        new Thread(
            () -> {
              long deadline = System.nanoTime() + EAGER_START_WAIT_NANOS;
              while (!ready() && System.nanoTime() < deadline) {
                try {
                  Thread.sleep(10);
                } catch (InterruptedException e) {
                  return;
                }
              }
              if (ready()) {
                start();
              }
            },
            "rdma-shuffle-start");
    t.setDaemon(true);
    t.start();
  }

  /** Whether Spark's environment has what the node's start needs (its block manager's id). */
  private boolean ready() {
    SparkEnv env = SparkEnv.get();
    return stopped
        || (env != null
            && env.blockManager() != null
            && env.blockManager().blockManagerId() != null);
  }

  /** The node if it started, else null; never starts it. */
  SparkNode ifStarted() {
    return node;
  }

  /** Why no transport runs in this process, or null. */
  String cause() {
    return unavailable;
  }

  /** No start from now on; closes the node if it started. */
  void stop() {
    synchronized (lock) {
      stopped = true;
    }
    SparkNode n = node;
    if (n != null) {
      n.close();
    }
  }
}
