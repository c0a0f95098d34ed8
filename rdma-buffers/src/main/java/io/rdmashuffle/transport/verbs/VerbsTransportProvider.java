/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.TransportStartException;
import io.rdmashuffle.transport.provider.Availability;
import io.rdmashuffle.transport.provider.PinnedMemory;
import io.rdmashuffle.transport.provider.TransportContext;
import io.rdmashuffle.transport.provider.TransportProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Probes whether RDMA verbs can run here: an RDMA device with an active port, a locked-memory limit
 * that allows what the process may pin ({@link PinnedMemory}), and our native library loaded under
 * DiSNI ({@link NativeLibrary}, loaded once per process). The transport itself ({@code
 * disni.VerbsTransport}) runs inside the DiSNI class loader and is started through {@link
 * VerbsStarter}.
 */
public final class VerbsTransportProvider implements TransportProvider {
  static final String STARTER = "io.rdmashuffle.transport.verbs.disni.VerbsTransportStarter";
  static final String ODP_PROBE = "io.rdmashuffle.transport.verbs.disni.OdpProbe";

  @Override
  public TransportKind kind() {
    return TransportKind.VERBS;
  }

  /** The probe for a process that only reads (a reduce task; the doctor's default). */
  @Override
  public Availability probe(RdmaConf conf) {
    return probe(conf, PinnedMemory.of(conf, false, true));
  }

  @Override
  public Availability probe(RdmaConf conf, PinnedMemory pinned) {
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
    findings.add(
        "memlock limit: "
            + (memlock == Long.MAX_VALUE
                ? "unlimited"
                : memlock < 0 ? "unknown" : memlock + " bytes")
            + ", this process may pin "
            + pinned.bytes()
            + " bytes ("
            + pinned.bounds()
            + ")");
    if (cause == null) {
      cause = pinned.memlockShortfall(memlock);
    }
    NativeLibrary library = NativeLibrary.load(conf);
    addNativeFindings(conf, library, findings);
    if (cause == null && !library.isAvailable()) {
      cause = "native library unavailable: " + library.unavailabilityCause().getMessage();
    }
    return cause == null
        ? Availability.available(findings)
        : Availability.unavailable(cause, findings);
  }

  private static void addNativeFindings(
      RdmaConf conf, NativeLibrary library, List<String> findings) {
    findings.add("native library: " + library.describe());
    if (library.isAvailable()) {
      addRegistrationFindings(conf, library, findings);
    }
    String configured = conf.get(RdmaShuffleConfig.VERBS_NATIVE_LIBRARY).trim();
    if (!configured.equals(library.requestedPath())) {
      findings.add(
          conf.keyOf(RdmaShuffleConfig.VERBS_NATIVE_LIBRARY)
              + "="
              + configured
              + " not used: this process loaded the native library once already, with "
              + (library.requestedPath().isEmpty() ? "no path set" : library.requestedPath()));
    }
  }

  /** Which registration served memory gets on each device, and why ({@code disni.OdpProbe}). */
  @SuppressWarnings("unchecked")
  private static void addRegistrationFindings(
      RdmaConf conf, NativeLibrary library, List<String> findings) {
    String key = conf.keyOf(RdmaShuffleConfig.VERBS_REGISTRATION);
    try {
      Function<String, Map<String, String>> probe = library.newInstance(ODP_PROBE, Function.class);
      Map<String, String> devices =
          probe.apply(conf.get(RdmaShuffleConfig.VERBS_REGISTRATION).name());
      if (devices.isEmpty()) {
        findings.add("served memory registration (" + key + "): no device to ask");
      }
      devices.forEach(
          (device, how) -> findings.add("served memory registration on " + device + ": " + how));
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      findings.add("served memory registration (" + key + "): could not ask the devices: " + e);
    }
  }

  @Override
  public Transport start(TransportContext context, PinnedMemory pinned)
      throws TransportStartException {
    Availability a = probe(context.conf(), pinned);
    if (!a.available()) {
      throw new TransportStartException(a.cause());
    }
    VerbsStarter starter;
    try {
      starter = NativeLibrary.load(context.conf()).newInstance(STARTER, VerbsStarter.class);
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new TransportStartException("the verbs transport could not be loaded: " + e, e);
    }
    return starter.start(context);
  }
}
