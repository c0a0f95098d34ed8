/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.server;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.config.ServerConfig;

/**
 * The bounds and timeouts of one connection server, read once from the settings. Each field names
 * its setting.
 */
public record ServerLimits(
    /** {@code server.ioThreads} */
    int ioThreads,
    /** {@code server.maxHandshakes} */
    int maxHandshakes,
    /** {@code server.maxHandshakesPerSource} */
    int maxHandshakesPerSource,
    /** {@code server.maxConnections} */
    int maxConnections,
    /** {@code server.maxConnectionsPerSource} */
    int maxConnectionsPerSource,
    /** {@code server.maxConnectionsPerApplication} */
    int maxConnectionsPerApplication,
    /** {@code connect.timeout}: the handshake deadline (and the callers' connect deadline) */
    long handshakeTimeoutNanos,
    /** {@code server.firstMessageTimeout} */
    long firstMessageTimeoutNanos,
    /** {@code server.idleTimeout} */
    long idleTimeoutNanos,
    /** {@code server.sendTimeout} */
    long sendTimeoutNanos,
    /** {@code server.withdrawTimeout} */
    long withdrawTimeoutNanos,
    /** {@code server.sendfile} */
    boolean sendfile,
    /** {@code call.workers} */
    int callWorkers,
    /** {@code call.queue} */
    int callQueue,
    /** {@code call.maxRequestBytes} */
    int maxCallRequestBytes,
    /** {@code call.maxAnswerBytes} */
    int maxCallAnswerBytes,
    /** {@code read.timeout}: how long a caller waits for an answer */
    long callTimeoutNanos) {

  public static ServerLimits from(RdmaConf conf) {
    return new ServerLimits(
        conf.get(ServerConfig.SERVER_IO_THREADS),
        conf.get(ServerConfig.SERVER_MAX_HANDSHAKES),
        conf.get(ServerConfig.SERVER_MAX_HANDSHAKES_PER_SOURCE),
        conf.get(ServerConfig.SERVER_MAX_CONNECTIONS),
        conf.get(ServerConfig.SERVER_MAX_CONNECTIONS_PER_SOURCE),
        conf.get(ServerConfig.SERVER_MAX_CONNECTIONS_PER_APPLICATION),
        conf.get(RdmaShuffleConfig.CONNECT_TIMEOUT).toNanos(),
        conf.get(ServerConfig.SERVER_FIRST_MESSAGE_TIMEOUT).toNanos(),
        conf.get(ServerConfig.SERVER_IDLE_TIMEOUT).toNanos(),
        conf.get(ServerConfig.SERVER_SEND_TIMEOUT).toNanos(),
        conf.get(ServerConfig.SERVER_WITHDRAW_TIMEOUT).toNanos(),
        conf.get(ServerConfig.SERVER_SENDFILE),
        conf.get(ServerConfig.CALL_WORKERS),
        conf.get(ServerConfig.CALL_QUEUE),
        (int) (long) conf.get(ServerConfig.CALL_MAX_REQUEST_BYTES),
        (int) (long) conf.get(ServerConfig.CALL_MAX_ANSWER_BYTES),
        conf.get(RdmaShuffleConfig.READ_TIMEOUT).toNanos());
  }
}
