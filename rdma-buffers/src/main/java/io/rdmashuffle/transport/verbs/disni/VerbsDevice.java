/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.disni;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.impl.NatIbvContext;
import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.config.VerbsRegistration;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.verbs.engine.VerbsAgent;
import io.rdmashuffle.transport.verbs.engine.VerbsAgentRunner;
import io.rdmashuffle.transport.verbs.engine.VerbsReadChannel;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the transport holds of its RDMA device, from opening to release: the registrar (protection
 * domains and memory regions), the completion channel and queue, and the READ engine on them
 * ({@link VerbsAgent} run by its {@link VerbsAgentRunner}). The device context itself belongs to
 * librdmacm (the transport's listening id holds it open).
 */
final class VerbsDevice {
  private static final Logger LOG = LoggerFactory.getLogger(VerbsDevice.class);
  private static final int CQ_ENTRIES = 8192;

  final VerbsRegistrar registrar;
  final VerbsAgent agent;
  final int cqEntries;
  private final IbvCompChannel compChannel;
  private final IbvCQ cq;
  private final DisniCompletionQueue completions;
  private final VerbsAgentRunner runner;
  private boolean cqDestroyed;

  private VerbsDevice(
      VerbsRegistrar registrar,
      IbvCompChannel compChannel,
      IbvCQ cq,
      int cqEntries,
      DisniCompletionQueue completions,
      VerbsAgent agent,
      VerbsAgentRunner runner) {
    this.registrar = registrar;
    this.compChannel = compChannel;
    this.cq = cq;
    this.cqEntries = cqEntries;
    this.completions = completions;
    this.agent = agent;
    this.runner = runner;
  }

  /**
   * Opens the device's resources and starts the engine; on failure releases what it made.
   *
   * @param deviceName for messages ("the RDMA device of HOST")
   * @param onEnded told when the engine ended a reading channel
   */
  static VerbsDevice open(
      IbvContext context,
      String deviceName,
      RdmaConf conf,
      TransportMetrics metrics,
      int maxDepth,
      Consumer<VerbsReadChannel> onEnded)
      throws IOException {
    long contextId = ((NatIbvContext) context).getObjId();
    long odpCaps = NativeExtras.odpCaps(contextId);
    VerbsRegistration setting = conf.get(RdmaShuffleConfig.VERBS_REGISTRATION);
    // a device may report RC READ on demand and return wrong bytes (Soft-RoCE up to at least 7.3):
    // READ through its own loopback once, before anything is served
    String check =
        OdpSupport.needsCheck(setting, odpCaps) ? NativeExtras.odpReadCheck(contextId) : null;
    OdpSupport odp =
        OdpSupport.decide(
            setting, deviceName, odpCaps, check, conf.keyOf(RdmaShuffleConfig.VERBS_REGISTRATION));
    LOG.info("{}: served memory {}", deviceName, odp.describe());
    VerbsRegistrar registrar = new VerbsRegistrar(context, metrics.memory(), odp);
    IbvCompChannel channel = null;
    IbvCQ cq = null;
    try {
      channel = context.createCompChannel();
      int entries = CQ_ENTRIES;
      while (true) {
        try {
          cq = context.createCQ(channel, entries, 0);
          break;
        } catch (IOException e) {
          if (entries <= 256) {
            throw e;
          }
          entries /= 2;
        }
      }
      DisniCompletionQueue completions =
          new DisniCompletionQueue(cq, channel, VerbsAgent.POLL_BATCH);
      VerbsAgent agent =
          new VerbsAgent(
              completions,
              entries,
              Math.min(entries, maxDepth),
              metrics,
              conf.get(RdmaShuffleConfig.READ_TIMEOUT).toNanos(),
              onEnded,
              TimeUnit.MICROSECONDS.toNanos(
                  conf.get(RdmaShuffleConfig.VERBS_READ_WAIT_SPIN_MICROS)));
      VerbsAgentRunner runner = new VerbsAgentRunner(agent, completions, metrics, "rdma-verbs-cq");
      runner.start();
      return new VerbsDevice(registrar, channel, cq, entries, completions, agent, runner);
    } catch (IOException | RuntimeException e) {
      destroyQuietly(cq, channel);
      registrar.releaseAll();
      throw e;
    }
  }

  IbvCQ cq() {
    return cq;
  }

  String registrationMode() {
    return registrar.odp().describe();
  }

  /**
   * Stops the engine (it breaks every reading channel first) and waits for it. Returns whether it
   * ended: while it runs it may still poll the completion queue, which must then not be destroyed.
   */
  boolean stopEngine() {
    return runner.stop();
  }

  /**
   * Releases the completion queue (when the engine ended) and every registration. A completion
   * queue whose engine did not stop is left to the process, never destroyed under it.
   */
  void release(boolean engineEnded) {
    if (engineEnded) {
      destroyCq();
    } else {
      LOG.error("the verbs engine did not stop: its completion queue is left to the process");
    }
    registrar.releaseAll();
  }

  private synchronized void destroyCq() {
    if (cqDestroyed) {
      return;
    }
    cqDestroyed = true;
    completions.free();
    destroyQuietly(cq, compChannel);
  }

  private static void destroyQuietly(IbvCQ cq, IbvCompChannel channel) {
    try {
      if (cq != null) {
        cq.destroyCQ();
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("destroying the completion queue failed", e);
    }
    try {
      if (channel != null) {
        channel.destroyCompChannel();
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("destroying the completion channel failed", e);
    }
  }
}
