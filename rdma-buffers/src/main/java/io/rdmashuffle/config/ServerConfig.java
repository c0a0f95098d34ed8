/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.config;

import java.time.Duration;
import java.util.List;

/**
 * The connection server's settings, declared once: the bounds and timeouts of the one server every
 * process runs (tcp READs, calls, verbs announcements). Part of the core's settings ({@link
 * RdmaShuffleConfig#ALL}).
 */
public final class ServerConfig {
  private ServerConfig() {}

  private static final long KIB = 1024L;
  private static final long MIB = 1024L * KIB;

  public static final ConfigEntry<Integer> SERVER_IO_THREADS =
      ConfigEntry.builder("server.ioThreads", ConfigType.INT)
          .defaultValue(4)
          .range(1, 64)
          .unit("threads")
          .doc(
              "I/O threads of the connection server, which serves every connection of the process"
                  + " (tcp READs, calls, verbs announcements) without a thread per connection; each"
                  + " runs the handshakes, requests and sends of its share of the connections.")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Integer> SERVER_MAX_HANDSHAKES =
      ConfigEntry.builder("server.maxHandshakes", ConfigType.INT)
          .defaultValue(1024)
          .range(1, 1 << 20)
          .unit("connections")
          .doc(
              "Connections that have not finished the authentication handshake, in total. When"
                  + " they are all taken, a newcomer takes the place of the connection in its"
                  + " handshake that has been idle longest (logged, counted as a handshakes"
                  + " refusal), never of one from a source that authenticated within"
                  + " server.idleTimeout: an eighth of the places is kept for such sources. A"
                  + " connection in its handshake holds a descriptor and about 1 KiB, no thread"
                  + " and no buffer, and is dropped at server.firstMessageTimeout without its"
                  + " first message, at connect.timeout without its handshake.")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Integer> SERVER_MAX_HANDSHAKES_PER_SOURCE =
      ConfigEntry.builder("server.maxHandshakesPerSource", ConfigType.INT)
          .defaultValue(128)
          .range(1, 1 << 20)
          .unit("connections")
          .doc(
              "Connections in their handshake from one source: an address that authenticated"
                  + " within server.idleTimeout, else its prefix (IPv4 /24, IPv6 /64), so one host"
                  + " or one network can't take every handshake place. One more takes the place"
                  + " of that source's connection idle longest.")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Integer> SERVER_MAX_CONNECTIONS =
      ConfigEntry.builder("server.maxConnections", ConfigType.INT)
          .defaultValue(4096)
          .range(1, 1 << 20)
          .unit("connections")
          .doc(
              "Authenticated connections (READ and call) served at once; a peer that proves its"
                  + " secret beyond it is told the server is busy (it retries) and the refusal is"
                  + " logged and counted. A connection costs a few KiB of heap and a descriptor, no"
                  + " thread.")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Integer> SERVER_MAX_CONNECTIONS_PER_SOURCE =
      ConfigEntry.builder("server.maxConnectionsPerSource", ConfigType.INT)
          .defaultValue(1024)
          .range(1, 1 << 20)
          .unit("connections")
          .doc(
              "Authenticated connections served at once from one source address (a peer that"
                  + " proved an application's secret is counted by its own address).")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Integer> SERVER_MAX_CONNECTIONS_PER_APPLICATION =
      ConfigEntry.builder("server.maxConnectionsPerApplication", ConfigType.INT)
          .defaultValue(2048)
          .range(1, 1 << 20)
          .unit("connections")
          .doc(
              "Authenticated connections served at once for one application (Spark application,"
                  + " MapReduce job), so one job can't take every connection of a NodeManager:"
                  + " half of server.maxConnections by default.")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Duration> SERVER_FIRST_MESSAGE_TIMEOUT =
      ConfigEntry.builder("server.firstMessageTimeout", ConfigType.DURATION)
          .defaultValue(Duration.ofSeconds(2))
          .range(Duration.ofMillis(10), Duration.ofHours(1))
          .doc(
              "A connection whose first message (the handshake's HELLO, which a client sends as"
                  + " soon as it is connected) has not fully arrived this long after it was"
                  + " accepted is closed (logged, counted as a handshake timeout), so idle sockets"
                  + " can't hold handshake places until connect.timeout.")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Duration> SERVER_IDLE_TIMEOUT =
      ConfigEntry.builder("server.idleTimeout", ConfigType.DURATION)
          .defaultValue(Duration.ofMinutes(10))
          .range(Duration.ofMillis(100), Duration.ofDays(1))
          .doc(
              "A connection with nothing to do (no request, no answer pending) for this long is"
                  + " closed, on both sides; readers open a new one when they need it.")
          .build();

  public static final ConfigEntry<Duration> SERVER_SEND_TIMEOUT =
      ConfigEntry.builder("server.sendTimeout", ConfigType.DURATION)
          .defaultValue(Duration.ofSeconds(60))
          .range(Duration.ofMillis(100), Duration.ofHours(1))
          .doc(
              "A send that makes no progress for this long (the peer stopped reading, or is"
                  + " gone) closes its connection and releases what it held. Only bytes written"
                  + " count as progress: a caller that sends requests and reads no answers is cut"
                  + " off too (its answers wait up to call.maxAnswerBytes, then its requests are"
                  + " no longer read).")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Duration> SERVER_WITHDRAW_TIMEOUT =
      ConfigEntry.builder("server.withdrawTimeout", ConfigType.DURATION)
          .defaultValue(Duration.ofSeconds(10))
          .range(Duration.ofMillis(10), Duration.ofHours(1))
          .doc(
              "A withdrawn region (a shuffle unregistered, an output evicted) that a send is still"
                  + " streaming is released within this bound: the send's connection is closed"
                  + " (its reader retries), so the mapping and the descriptor are freed. READs of"
                  + " the region not yet started are refused at once.")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Boolean> SERVER_SENDFILE =
      ConfigEntry.builder("server.sendfile", ConfigType.BOOLEAN)
          .defaultValue(true)
          .doc(
              "tcp READs of mapped files are sent with sendfile (FileChannel.transferTo: no copy"
                  + " through the JVM). false sends them from the mapping, for measurements.")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Integer> CALL_WORKERS =
      ConfigEntry.builder("call.workers", ConfigType.INT)
          .defaultValue(4)
          .range(1, 1024)
          .unit("threads")
          .doc(
              "Threads that answer calls (never the I/O threads); started when needed, ended"
                  + " after a minute idle. The MapReduce NodeManager service answers its locate"
                  + " requests (HTTP, on the shuffle port) with as many threads. A Spark executor"
                  + " keeps twice as many locate calls in flight to one owner (enough to keep its"
                  + " workers busy while answers travel); its tasks' locates that wait meanwhile go"
                  + " out merged.")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Integer> CALL_QUEUE =
      ConfigEntry.builder("call.queue", ConfigType.INT)
          .defaultValue(256)
          .range(1, 1 << 20)
          .unit("calls")
          .doc(
              "Calls waiting for a call worker; a call beyond it is answered busy at once (the"
                  + " caller retries later), logged and counted. The MapReduce NodeManager service"
                  + " keeps as many locate requests waiting, before they are authenticated; beyond"
                  + " it a reducer is answered 429 and tries that node again later.")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Long> CALL_MAX_REQUEST_BYTES =
      ConfigEntry.builder("call.maxRequestBytes", ConfigType.BYTES)
          .defaultValue(64 * KIB)
          .range(KIB, 16 * MIB)
          .doc(
              "Largest call request. A caller refuses to send a larger one; a server closes a"
                  + " connection that announces one.")
          .build();

  public static final ConfigEntry<Long> CALL_MAX_ANSWER_BYTES =
      ConfigEntry.builder("call.maxAnswerBytes", ConfigType.BYTES)
          .defaultValue(MIB)
          .range(KIB, 64 * MIB)
          .doc(
              "Largest call answer. A server answers a larger one with a refusal (too large); a"
                  + " caller closes a connection that announces one. Locate answers never pass it:"
                  + " a reader asks for as many map outputs and partitions as one answer holds,"
                  + " and a server answers the maps that fit and defers the rest (asked again).")
          .build();

  public static final ConfigEntry<Integer> VERBS_MAX_ANNOUNCEMENTS =
      ConfigEntry.builder("verbs.maxAnnouncements", ConfigType.INT)
          .defaultValue(4096)
          .range(1, 1 << 20)
          .unit("announcements")
          .doc(
              "verbs: RDMA-CM connects announced by authenticated peers and not yet made, in total;"
                  + " each expires after connect.timeout. Beyond it announcements are refused.")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Integer> VERBS_MAX_ANNOUNCEMENTS_PER_PEER =
      ConfigEntry.builder("verbs.maxAnnouncementsPerPeer", ConfigType.INT)
          .defaultValue(256)
          .range(1, 1 << 20)
          .unit("announcements")
          .doc("verbs: announced RDMA-CM connects not yet made, per peer address.")
          .side(ConfigEntry.Side.SERVING)
          .build();

  /** Every setting above, in order. */
  public static final List<ConfigEntry<?>> ALL =
      List.of(
          SERVER_IO_THREADS,
          SERVER_MAX_HANDSHAKES,
          SERVER_MAX_HANDSHAKES_PER_SOURCE,
          SERVER_MAX_CONNECTIONS,
          SERVER_MAX_CONNECTIONS_PER_SOURCE,
          SERVER_MAX_CONNECTIONS_PER_APPLICATION,
          SERVER_FIRST_MESSAGE_TIMEOUT,
          SERVER_IDLE_TIMEOUT,
          SERVER_SEND_TIMEOUT,
          SERVER_WITHDRAW_TIMEOUT,
          SERVER_SENDFILE,
          CALL_WORKERS,
          CALL_QUEUE,
          CALL_MAX_REQUEST_BYTES,
          CALL_MAX_ANSWER_BYTES,
          VERBS_MAX_ANNOUNCEMENTS,
          VERBS_MAX_ANNOUNCEMENTS_PER_PEER);
}
