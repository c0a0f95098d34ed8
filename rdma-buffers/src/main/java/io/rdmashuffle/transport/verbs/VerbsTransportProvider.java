package io.rdmashuffle.transport.verbs;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.transport.Availability;
import io.rdmashuffle.transport.RdmaDevices;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.TransportContext;
import io.rdmashuffle.transport.TransportProvider;
import io.rdmashuffle.transport.TransportStartException;
import java.util.ArrayList;
import java.util.List;

/**
 * Probes whether RDMA verbs can run here: an RDMA device with an active port, and a locked-memory
 * limit that allows the buffer pool. The verbs transport itself (DiSNI and our native library)
 * is not part of this build yet, so the probe always ends unavailable, saying so.
 */
public final class VerbsTransportProvider implements TransportProvider {
  static final String NOT_BUILT = "the verbs transport is not part of this build yet";

  @Override
  public TransportKind kind() {
    return TransportKind.VERBS;
  }

  @Override
  public Availability probe(RdmaConf conf) {
    List<String> findings = new ArrayList<>();
    String cause = null;
    List<RdmaDevices.Port> ports = RdmaDevices.ports();
    if (ports.isEmpty()) {
      findings.add("devices: none in /sys/class/infiniband");
      cause = "no RDMA device";
    } else {
      for (RdmaDevices.Port p : ports) {
        findings.add("device " + p);
      }
      if (ports.stream().noneMatch(RdmaDevices.Port::active)) {
        cause = "no RDMA device port is ACTIVE";
      }
    }
    long memlock = RdmaDevices.memlockLimit();
    long need = conf.get(RdmaShuffleConfig.BUFFERS_MAX_BYTES);
    findings.add(
        "memlock limit: "
            + (memlock == Long.MAX_VALUE ? "unlimited" : memlock < 0 ? "unknown" : memlock + " bytes")
            + ", buffer pool needs " + need + " bytes ("
            + conf.keyOf(RdmaShuffleConfig.BUFFERS_MAX_BYTES) + ")");
    if (cause == null && memlock >= 0 && memlock < need) {
      cause =
          "memlock limit " + memlock + " bytes is below "
              + conf.keyOf(RdmaShuffleConfig.BUFFERS_MAX_BYTES) + "=" + need
              + " (raise it with ulimit -l / limits.conf / LimitMEMLOCK)";
    }
    findings.add("native library: " + NOT_BUILT);
    if (cause == null) {
      cause = NOT_BUILT;
    }
    return Availability.unavailable(cause, findings);
  }

  @Override
  public Transport start(TransportContext context) throws TransportStartException {
    throw new TransportStartException(probe(context.conf()).cause());
  }
}
