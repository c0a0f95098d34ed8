package io.rdmashuffle.transport;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.metrics.TransportMetrics;

/**
 * What a transport needs to start: the settings, the application secrets it serves and proves,
 * the host to advertise when the settings leave it empty, and the counters to count into.
 */
public record TransportContext(
    RdmaConf conf, ApplicationSecrets secrets, String defaultHost, TransportMetrics metrics) {}
