/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.ConfigEntry;
import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.memory.Access;
import io.rdmashuffle.memory.BufferPool;
import io.rdmashuffle.memory.DirectMemory;
import io.rdmashuffle.memory.MemoryPiece;
import io.rdmashuffle.memory.PooledBuffer;
import io.rdmashuffle.memory.RegisteredFile;
import io.rdmashuffle.memory.RegisteredFileDescriptor;
import io.rdmashuffle.memory.RegisteredRegion;
import io.rdmashuffle.metrics.FailureKind;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.node.TransportSelector;
import io.rdmashuffle.testing.FileDescriptors;
import io.rdmashuffle.testing.Patterns;
import io.rdmashuffle.testing.ReadResults;
import io.rdmashuffle.testing.ServingProcess;
import io.rdmashuffle.testing.TestSchema;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The behaviour every transport must have, written once. {@code TcpTransportTest} runs it against
 * tcp on loopback, {@code VerbsTransportTest} against verbs on Soft-RoCE devices. A subclass names
 * the transport and the two hosts (serving side, reading side); everything else goes through the
 * SPI only.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
public abstract class TransportContractTest {
  protected static final String APP = "app-contract";
  protected static final String OTHER_APP = "app-other";
  protected static final byte[] SECRET =
      "contract-secret-0123456789".getBytes(StandardCharsets.UTF_8);
  protected static final byte[] OTHER_SECRET =
      "other-secret-0123456789ab".getBytes(StandardCharsets.UTF_8);
  protected static final int MIB = 1 << 20;

  @TempDir protected Path dir;

  protected Transport server;
  protected ApplicationSecrets serverSecrets;
  protected Transport client;
  protected BufferPool pool;
  protected final List<AutoCloseable> closeAfter = new ArrayList<>();
  private int fdsBefore;

  /** The transport under test. */
  protected abstract TransportKind kind();

  /** Host the serving transport listens on. */
  protected abstract String serverHost();

  /** Host the reading transport uses. */
  protected abstract String clientHost();

  /**
   * The read timeout both sides run with; assertions about how fast faults surface are relative to
   * it. A slow environment (the emulated guest) may choose a longer one.
   */
  protected long readTimeoutSeconds() {
    return 5;
  }

  /** The connect timeout both sides run with. */
  protected long connectTimeoutSeconds() {
    return 5;
  }

  /**
   * Whether a killed serving process's regions may go before its connections, so that READs in
   * flight are refused ({@link FailureKind#REMOTE_ACCESS}) rather than cut off. A reader asks the
   * owner again after a refusal, finds it unreachable and fails the fetch on it: the same outcome.
   */
  protected boolean killedPeersRegionsMayGoFirst() {
    return false;
  }

  /** Settings for both sides; subclasses may add their own. */
  protected Map<ConfigEntry<?>, String> settings() {
    Map<ConfigEntry<?>, String> m = new HashMap<>();
    m.put(RdmaShuffleConfig.TRANSPORT, kind().name().toLowerCase(java.util.Locale.ROOT));
    m.put(RdmaShuffleConfig.READ_TIMEOUT, readTimeoutSeconds() + "s");
    m.put(RdmaShuffleConfig.CONNECT_TIMEOUT, connectTimeoutSeconds() + "s");
    m.put(RdmaShuffleConfig.MAX_OUTSTANDING_READS, "512");
    m.put(RdmaShuffleConfig.BUFFERS_MAX_BYTES, "256m");
    return m;
  }

  protected RdmaConf conf(Map<ConfigEntry<?>, String> extra) {
    Map<ConfigEntry<?>, String> m = settings();
    m.putAll(extra);
    return RdmaConf.defaults(TestSchema.SPARK_KEYS).with(m);
  }

  protected Transport start(String host, RdmaConf conf, ApplicationSecrets secrets)
      throws TransportStartException {
    return TransportSelector.standard().start(conf, secrets, host, new TransportMetrics());
  }

  @BeforeEach
  void startTransports() throws Exception {
    fdsBefore = FileDescriptors.open();
    serverSecrets = ApplicationSecrets.of(APP, SECRET);
    serverSecrets.put(OTHER_APP, OTHER_SECRET);
    RdmaConf conf = conf(Map.of());
    server = start(serverHost(), conf, serverSecrets);
    ApplicationSecrets clientSecrets = ApplicationSecrets.of(APP, SECRET);
    clientSecrets.put(OTHER_APP, OTHER_SECRET);
    client = start(clientHost(), conf, clientSecrets);
    assertEquals(kind(), server.kind());
    assertEquals(kind(), client.kind());
    pool = new BufferPool(client.registrar(), 4096, 16 * MIB, 256L * MIB, true);
  }

  @AfterEach
  void stopTransports() throws Exception {
    for (int i = closeAfter.size() - 1; i >= 0; i--) {
      closeAfter.get(i).close();
    }
    if (pool != null) {
      assertEquals(List.of(), pool.leaks(), "buffers lent and never released");
      pool.close();
    }
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.close();
    }
  }

  // ---------------------------------------------------------------- helpers

  protected RegisteredRegion serveMemory(int bytes, int seed, String owner) throws Exception {
    ByteBuffer memory = DirectMemory.allocate(bytes);
    Patterns.fill(memory, 0, seed);
    RegisteredRegion r =
        server
            .registrar()
            .register(
                MemoryPiece.of(memory), Access.REMOTE_READ, owner, () -> DirectMemory.free(memory));
    closeAfter.add(r);
    return r;
  }

  protected RegisteredFile serveFile(long bytes, long pieceSize, int seed) throws Exception {
    Path p = Patterns.file(dir.resolve("served-" + seed), bytes, seed);
    RegisteredFile f = RegisteredFile.open(p, pieceSize, server.registrar(), APP);
    closeAfter.add(f);
    return f;
  }

  protected ReadChannel connect() throws TransportException {
    ReadChannel c = client.connect(server.localAddress(), APP);
    closeAfter.add(c);
    return c;
  }

  /** READs {@code length} bytes at {@code address} into a fresh buffer; waits for the outcome. */
  protected Outcome readOnce(ReadChannel c, long address, int rkey, int length) throws Exception {
    PooledBuffer b = pool.allocate(length, 10, TimeUnit.SECONDS);
    ByteBuffer view = b.buffer();
    for (int i = 0; i < length; i++) {
      view.put(i, (byte) 0x5A);
    }
    ReadResults results = new ReadResults(1);
    ReadOp op = new ReadOp().set(address, rkey, length, b, 0, results);
    c.post(op);
    assertTrue(results.await(60, TimeUnit.SECONDS), "READ neither completed nor failed");
    return new Outcome(b, results.failures().isEmpty() ? null : results.failures().get(0));
  }

  /** The outcome of one READ; the caller releases the buffer. */
  protected record Outcome(PooledBuffer buffer, TransportException failure) {
    void assertUntouched(int length) {
      for (int i = 0; i < length; i++) {
        assertEquals(
            (byte) 0x5A, buffer.buffer().get(i), "byte " + i + " was written by a failed READ");
      }
    }
  }

  private void assertPattern(ByteBuffer b, int pos, int len, long base, int seed) {
    long bad = Patterns.firstMismatch(b, pos, len, base, seed);
    assertEquals(-1, bad, "first wrong byte at " + bad + " of a READ of " + len + " at " + base);
  }

  // ---------------------------------------------------------------- correctness

  @Test
  void readsEveryLengthFromOneByteTo16MiBAtRegionStartAndEnd() throws Exception {
    int size = 16 * MIB + 4096;
    RegisteredRegion r = serveMemory(size, 1, APP);
    ReadChannel c = connect();
    int[] lengths = {1, 2, 7, 4095, 4096, 65535, 65536, MIB + 3, 4 * MIB, 16 * MIB};
    for (int len : lengths) {
      for (long at : new long[] {0, size - len}) {
        Outcome o = readOnce(c, r.address() + at, r.rkey(), len);
        try {
          assertNull(o.failure(), () -> "READ of " + len + " at " + at + ": " + o.failure());
          assertPattern(o.buffer().buffer(), 0, len, at, 1);
        } finally {
          o.buffer().release();
        }
      }
    }
  }

  @Test
  void readsFromAMappedFileAcrossItsRegisteredPieces() throws Exception {
    long pieceSize = 256 * 1024;
    long length = 5 * pieceSize + 12345;
    RegisteredFile f = serveFile(length, pieceSize, 2);
    assertEquals(6, f.pieces().size());
    RegisteredFileDescriptor d = RegisteredFileDescriptor.decode(f.descriptor().encode());
    ReadChannel c = connect();
    long[][] ranges = {
      {0, 1},
      {pieceSize - 10, 20},
      {pieceSize - 1, 3 * pieceSize + 2},
      {0, length},
      {length - 12345, 12345},
      {length - 1, 1}
    };
    for (long[] range : ranges) {
      long offset = range[0];
      int len = (int) range[1];
      PooledBuffer b = pool.allocate(len, 10, TimeUnit.SECONDS);
      try {
        List<ReadOp> ops = new ArrayList<>();
        ReadResults results = new ReadResults(countSegments(d, offset, len));
        d.segments(
            offset,
            len,
            (fileOffset, address, rkey, n) ->
                ops.add(
                    new ReadOp().set(address, rkey, n, b, (int) (fileOffset - offset), results)));
        c.postAll(ops);
        assertTrue(results.await(60, TimeUnit.SECONDS));
        assertEquals(List.of(), results.failures());
        assertPattern(b.buffer(), 0, len, offset, 2);
      } finally {
        b.release();
      }
    }
  }

  private static int countSegments(RegisteredFileDescriptor d, long offset, long len) {
    int[] n = {0};
    d.segments(offset, len, (a, b, c, e) -> n[0]++);
    return n[0];
  }

  @Test
  void thousandsOfOutstandingReadsAllCompleteWithTheRightBytes() throws Exception {
    int count = 10_000;
    int len = 4096;
    RegisteredRegion r = serveMemory(count * len / 4, 3, APP);
    ReadChannel c = connect();
    PooledBuffer b = pool.allocate(count * len, 10, TimeUnit.SECONDS);
    try {
      ReadResults results = new ReadResults(count);
      List<ReadOp> ops = new ArrayList<>(count);
      Random random = new Random(42);
      long[] sources = new long[count];
      for (int i = 0; i < count; i++) {
        sources[i] = random.nextInt(r.length() - len);
        ops.add(new ReadOp().set(r.address() + sources[i], r.rkey(), len, b, i * len, results));
      }
      c.postAll(ops);
      assertTrue(results.await(100, TimeUnit.SECONDS), "not all READs ended");
      assertEquals(List.of(), results.failures());
      assertEquals(count, results.completed());
      for (int i = 0; i < count; i++) {
        assertPattern(b.buffer(), i * len, len, sources[i], 3);
      }
    } finally {
      b.release();
    }
  }

  @Test
  void inFlightReadsNeverExceedTheConfiguredBounds() throws Exception {
    client.close();
    client =
        start(
            clientHost(),
            conf(
                Map.of(
                    RdmaShuffleConfig.MAX_OUTSTANDING_READS, "8",
                    RdmaShuffleConfig.MAX_OUTSTANDING_BYTES, "64k")),
            ApplicationSecrets.of(APP, SECRET));
    pool.close();
    pool = new BufferPool(client.registrar(), 4096, 16 * MIB, 256L * MIB, true);
    RegisteredRegion r = serveMemory(4 * MIB, 4, APP);
    ReadChannel c = connect();
    int count = 2000;
    int len = 16 * 1024;
    PooledBuffer b = pool.allocate(count * len, 10, TimeUnit.SECONDS);
    try {
      ReadResults results = new ReadResults(count);
      int refused = 0;
      int posted = 0;
      ReadOp[] ops = new ReadOp[count];
      while (posted < count) {
        ops[posted] =
            new ReadOp().set(r.address() + posted, r.rkey(), len, b, posted * len, results);
        if (c.tryPost(ops[posted])) {
          posted++;
        } else {
          refused++;
          Thread.onSpinWait();
        }
        int inFlight = c.inFlight();
        assertTrue(inFlight <= 4, "in flight " + inFlight + " exceeds 64k / 16k = 4 READs");
      }
      assertTrue(results.await(60, TimeUnit.SECONDS));
      assertEquals(List.of(), results.failures());
      assertTrue(refused > 0, "a bound of 8 READs / 64k never refused a READ of 2000");
      for (int i = 0; i < count; i++) {
        assertPattern(b.buffer(), i * len, len, i, 4);
      }
    } finally {
      b.release();
    }
  }

  @Test
  void manyConcurrentReadersGetTheirOwnBytes() throws Exception {
    RegisteredRegion r = serveMemory(8 * MIB, 5, APP);
    int threads = 8;
    ExecutorService ex = Executors.newFixedThreadPool(threads);
    try {
      ReadChannel shared = connect();
      List<Future<?>> fs = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        final int id = t;
        fs.add(
            ex.submit(
                () -> {
                  ReadChannel c = id % 2 == 0 ? shared : connect();
                  Random random = new Random(id);
                  for (int i = 0; i < 200; i++) {
                    int len = 1 + random.nextInt(128 * 1024);
                    long at = random.nextInt(r.length() - len);
                    Outcome o = readOnce(c, r.address() + at, r.rkey(), len);
                    try {
                      assertNull(o.failure());
                      assertPattern(o.buffer().buffer(), 0, len, at, 5);
                    } finally {
                      o.buffer().release();
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : fs) {
        f.get(100, TimeUnit.SECONDS);
      }
    } finally {
      ex.shutdownNow();
    }
  }

  // ---------------------------------------------------------------- remote access errors

  @Test
  void readWithABadRkeyIsARemoteAccessErrorAndWritesNothing() throws Exception {
    RegisteredRegion r = serveMemory(MIB, 6, APP);
    ReadChannel c = connect();
    Outcome o = readOnce(c, r.address(), r.rkey() ^ 0x5A5A0000, 4096);
    try {
      assertInstanceOf(RemoteAccessException.class, o.failure());
      assertEquals(FailureKind.REMOTE_ACCESS, o.failure().kind());
      assertEquals(server.localAddress(), o.failure().peer());
      assertNotNull(o.failure().request());
      o.assertUntouched(4096);
    } finally {
      o.buffer().release();
    }
    assertAFreshConnectionStillReads(r, 6);
  }

  @Test
  void readBeyondRegionEndIsRejected() throws Exception {
    RegisteredRegion r = serveMemory(MIB, 7, APP);
    ReadChannel c = connect();
    Outcome o = readOnce(c, r.address() + MIB - 100, r.rkey(), 101);
    try {
      assertInstanceOf(RemoteAccessException.class, o.failure());
      o.assertUntouched(101);
    } finally {
      o.buffer().release();
    }
    assertAFreshConnectionStillReads(r, 7);
  }

  @Test
  void readBeforeRegionStartIsRejected() throws Exception {
    RegisteredRegion r = serveMemory(MIB, 8, APP);
    ReadChannel c = connect();
    Outcome o = readOnce(c, r.address() - 1, r.rkey(), 64);
    try {
      assertInstanceOf(RemoteAccessException.class, o.failure());
      o.assertUntouched(64);
    } finally {
      o.buffer().release();
    }
  }

  @Test
  void readOfADeregisteredRegionIsRejected() throws Exception {
    RegisteredRegion r = serveMemory(MIB, 9, APP);
    ReadChannel c = connect();
    Outcome ok = readOnce(c, r.address(), r.rkey(), 4096);
    assertNull(ok.failure());
    ok.buffer().release();
    r.close();
    ReadChannel fresh = connect();
    Outcome o = readOnce(fresh, r.address(), r.rkey(), 4096);
    try {
      assertInstanceOf(RemoteAccessException.class, o.failure());
      o.assertUntouched(4096);
    } finally {
      o.buffer().release();
    }
  }

  @Test
  void withdrawingAnApplicationEndsItsReadersConnectionsAndNoOneElses() throws Exception {
    RegisteredRegion mine = serveMemory(MIB, 14, APP);
    RegisteredRegion theirs = serveMemory(MIB, 15, OTHER_APP);
    ReadChannel a = client.connect(server.localAddress(), APP);
    ReadChannel b = client.connect(server.localAddress(), OTHER_APP);
    for (ReadChannel c : List.of(a, b)) {
      RegisteredRegion r = c == a ? mine : theirs;
      Outcome o = readOnce(c, r.address(), r.rkey(), 100);
      assertNull(o.failure());
      o.buffer().release();
    }

    server.withdrawApplication(APP);

    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(readTimeoutSeconds());
    Outcome after = readOnce(a, mine.address(), mine.rkey(), 100);
    try {
      assertNotNull(after.failure(), "a READ of the withdrawn application's connection");
    } finally {
      after.buffer().release();
    }
    while (a.isOpen() && System.nanoTime() - deadline < 0) {
      Thread.sleep(10);
    }
    assertFalse(a.isOpen(), "the withdrawn application's connection ended");
    Outcome other = readOnce(b, theirs.address() + 10, theirs.rkey(), 1000);
    try {
      assertNull(other.failure(), "another application's connection keeps reading");
      assertPattern(other.buffer().buffer(), 0, 1000, 10, 15);
    } finally {
      other.buffer().release();
    }
    a.close();
    b.close();
  }

  /**
   * Withdrawal is final for calls too: the application's authenticated CALL connections end (a
   * connection left open would keep answering it, verbs announcements included), a new one is
   * refused (its secret is gone), and another application's calls go on.
   */
  @Test
  void withdrawingAnApplicationEndsItsCallConnectionsAndNoOneElses() throws Exception {
    int echo = 100;
    server.serveCalls(
        echo,
        (application, request) -> {
          ByteBuffer a = ByteBuffer.allocate(request.remaining());
          a.put(request).flip();
          return a;
        });
    for (String app : List.of(APP, OTHER_APP)) {
      ByteBuffer answer =
          client
              .call(server.localAddress(), app, echo, ByteBuffer.wrap(new byte[] {7}))
              .get(connectTimeoutSeconds() + readTimeoutSeconds(), TimeUnit.SECONDS);
      assertEquals(7, answer.get(0), app);
    }
    // what the serving core does at withdrawal: the secret goes, then the transport is told
    serverSecrets.remove(APP);
    server.withdrawApplication(APP);

    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () ->
                client
                    .call(server.localAddress(), APP, echo, ByteBuffer.wrap(new byte[] {8}))
                    .get(connectTimeoutSeconds() + readTimeoutSeconds(), TimeUnit.SECONDS),
            "a call of the withdrawn application was answered");
    assertInstanceOf(TransportException.class, e.getCause(), e.toString());
    ByteBuffer other =
        client
            .call(server.localAddress(), OTHER_APP, echo, ByteBuffer.wrap(new byte[] {9}))
            .get(connectTimeoutSeconds() + readTimeoutSeconds(), TimeUnit.SECONDS);
    assertEquals(9, other.get(0), "another application's calls go on");
  }

  @Test
  void readOfAnotherApplicationsRegionIsRejected() throws Exception {
    RegisteredRegion foreign = serveMemory(MIB, 10, OTHER_APP);
    ReadChannel c = connect();
    Outcome o = readOnce(c, foreign.address(), foreign.rkey(), 4096);
    try {
      assertInstanceOf(RemoteAccessException.class, o.failure());
      o.assertUntouched(4096);
    } finally {
      o.buffer().release();
    }
  }

  /**
   * A process READs what it serves itself through its own transport's address: Spark's local mode,
   * or any reader whose {@code read.local} is off, asks its own process like any other owner.
   */
  @Test
  void aTransportReadsWhatItServesThroughItsOwnAddress() throws Exception {
    RegisteredRegion r = serveMemory(MIB, 21, APP);
    assertReadsThrough(server, r, 21);
  }

  /**
   * Two processes on one address READ each other: two executors of one host, on its one NIC (or one
   * device), with {@code read.local} off or files they may not open.
   */
  @Test
  void twoTransportsOnOneAddressReadEachOthersRegions() throws Exception {
    ApplicationSecrets secrets = ApplicationSecrets.of(APP, SECRET);
    Transport neighbour = start(serverHost(), conf(Map.of()), secrets);
    closeAfter.add(neighbour);
    RegisteredRegion r = serveMemory(MIB, 22, APP);
    assertReadsThrough(neighbour, r, 22);
  }

  /** {@code reader} READs {@code r} (the server's) whole and in pieces, into its own buffers. */
  private void assertReadsThrough(Transport reader, RegisteredRegion r, int seed) throws Exception {
    BufferPool own = new BufferPool(reader.registrar(), 4096, 4 * MIB, 16L * MIB, true);
    try {
      try (ReadChannel c = reader.connect(server.localAddress(), APP)) {
        for (int len : new int[] {1, 4096, 65536, MIB}) {
          PooledBuffer b = own.allocate(len, 10, TimeUnit.SECONDS);
          try {
            ReadResults results = new ReadResults(1);
            c.post(new ReadOp().set(r.address(), r.rkey(), len, b, 0, results));
            assertTrue(results.await(60, TimeUnit.SECONDS), "READ neither completed nor failed");
            assertEquals(List.of(), results.failures(), "READ of " + len + " bytes");
            assertPattern(b.buffer(), 0, len, 0, seed);
          } finally {
            b.release();
          }
        }
      }
      assertEquals(List.of(), own.leaks(), "buffers lent and never released");
    } finally {
      own.close();
    }
  }

  private void assertAFreshConnectionStillReads(RegisteredRegion r, int seed) throws Exception {
    ReadChannel fresh = connect();
    Outcome o = readOnce(fresh, r.address() + 10, r.rkey(), 1000);
    try {
      assertNull(o.failure());
      assertPattern(o.buffer().buffer(), 0, 1000, 10, seed);
    } finally {
      o.buffer().release();
    }
  }

  // ---------------------------------------------------------------- authentication

  @Test
  void aPeerWithTheWrongSecretIsRefused() throws Exception {
    try (Transport intruder =
        start(
            clientHost(),
            conf(Map.of()),
            ApplicationSecrets.of(
                APP, "not-the-secret-0123456789".getBytes(StandardCharsets.UTF_8)))) {
      TransportException e =
          assertThrows(
              TransportException.class, () -> intruder.connect(server.localAddress(), APP));
      assertInstanceOf(AuthenticationException.class, e);
      assertEquals(server.localAddress(), e.peer());
    }
  }

  @Test
  void aPeerOfAnUnknownApplicationIsRefused() throws Exception {
    try (Transport stranger =
        start(clientHost(), conf(Map.of()), ApplicationSecrets.of("app-unknown", SECRET))) {
      assertThrows(
          AuthenticationException.class,
          () -> stranger.connect(server.localAddress(), "app-unknown"));
    }
  }

  @Test
  void connectingWithoutASecretForTheApplicationFailsBeforeTouchingTheNetwork() {
    assertThrows(
        AuthenticationException.class,
        () -> client.connect(server.localAddress(), "app-without-secret"));
  }

  // ---------------------------------------------------------------- faults

  @Test
  void aConnectionThisSideCantSetUpFailsAsItsOwnFailureNotThePeers() throws Exception {
    Transport gone = start(clientHost(), conf(Map.of()), ApplicationSecrets.of(APP, SECRET));
    gone.close();
    TransportException e =
        assertThrows(TransportException.class, () -> gone.connect(server.localAddress(), APP));
    assertInstanceOf(LocalSideException.class, e, e.toString());
    assertEquals(FailureKind.LOCAL_SIDE, e.kind());
    assertEquals(server.localAddress(), e.peer());
    assertEquals(1, gone.metrics().failures(FailureKind.LOCAL_SIDE));
    assertEquals(0, gone.metrics().failures(FailureKind.UNREACHABLE), "the peer is not blamed");
  }

  @Test
  void connectToAPortWithoutResponderFailsAsUnreachable() throws Exception {
    int port;
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName(serverHost()))) {
      port = s.getLocalPort();
    }
    long t0 = System.nanoTime();
    TransportException e =
        assertThrows(
            TransportException.class,
            () -> client.connect(new PeerAddress(serverHost(), port), APP));
    assertInstanceOf(PeerUnreachableException.class, e);
    assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(2 * connectTimeoutSeconds()));
  }

  @Test
  void aServingProcessKilledMidReadFailsEveryReadWithinTheTimeout() throws Exception {
    int size = 64 * MIB;
    ProcessBuilder pb =
        new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx256m",
            "-XX:MaxDirectMemorySize=512m",
            "--add-exports",
            "java.base/sun.nio.ch=ALL-UNNAMED",
            "-cp",
            System.getProperty("rdma.test.classpath", System.getProperty("java.class.path")),
            ServingProcess.class.getName(),
            kind().name().toLowerCase(java.util.Locale.ROOT),
            serverHost(),
            APP,
            new String(SECRET, StandardCharsets.UTF_8),
            Integer.toString(size),
            "11");
    pb.redirectErrorStream(true);
    Process p = pb.start();
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      String line;
      while ((line = out.readLine()) != null && !line.startsWith("READY")) {
        // skip the child's log lines
      }
      assertNotNull(line, "serving process ended without serving");
      String[] f = line.split(" ");
      PeerAddress peer = new PeerAddress(serverHost(), Integer.parseInt(f[1]));
      int rkey = Integer.parseInt(f[2]);
      long address = Long.parseLong(f[3]);
      ReadChannel c = client.connect(peer, APP);
      closeAfter.add(c);
      int len = 4 * MIB;
      int count = 64;
      PooledBuffer b = pool.allocate(len * 4, 10, TimeUnit.SECONDS);
      try {
        ReadResults results = new ReadResults(count);
        AtomicReference<ReadOp> first = new AtomicReference<>();
        ReadListener killer =
            new ReadListener() {
              @Override
              public void onReadComplete(ReadOp op) {
                if (first.compareAndSet(null, op)) {
                  p.destroyForcibly();
                }
                results.onReadComplete(op);
              }

              @Override
              public void onReadFailed(ReadOp op, TransportException cause) {
                results.onReadFailed(op, cause);
              }
            };
        List<ReadOp> ops = new ArrayList<>();
        for (int i = 0; i < count; i++) {
          ops.add(
              new ReadOp()
                  .set(address + (long) (i % 16) * len, rkey, len, b, (i % 4) * len, killer));
        }
        long t0 = System.nanoTime();
        c.postAll(ops);
        // every READ ends within the read timeout after the kill, plus time to notice
        long bound = 4 * readTimeoutSeconds() + 10;
        assertTrue(results.await(bound, TimeUnit.SECONDS), "READs hung after the peer was killed");
        long elapsed = System.nanoTime() - t0;
        assertTrue(
            elapsed < TimeUnit.SECONDS.toNanos(bound), "took " + elapsed / 1_000_000 + " ms");
        assertFalse(results.failures().isEmpty(), "every READ completed although the peer died");
        for (TransportException e : results.failures()) {
          assertTrue(
              e.kind() == FailureKind.CONNECTION_LOST
                  || e.kind() == FailureKind.TIMEOUT
                  || (killedPeersRegionsMayGoFirst() && e.kind() == FailureKind.REMOTE_ACCESS),
              "unexpected " + e);
          assertEquals(peer, e.peer());
          assertNotNull(e.request());
        }
      } finally {
        b.release();
      }
    } finally {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
  }

  // ---------------------------------------------------------------- resources

  @Test
  void closingEverythingReturnsRegisteredMemoryAndFileDescriptors() throws Exception {
    long serverBytes = server.metrics().memory().registeredBytes();
    long serverRegions = server.metrics().memory().registeredRegions();
    RegisteredFile f = serveFile(3 * MIB + 5, 1 * MIB, 12);
    RegisteredRegion m = serveMemory(MIB, 13, APP);
    assertEquals(serverRegions + 5, server.metrics().memory().registeredRegions());
    assertEquals(serverBytes + 4 * MIB + 5, server.metrics().memory().registeredBytes());
    ConnectionPool connections = new ConnectionPool(client, 2);
    for (int i = 0; i < 4; i++) {
      ReadChannel c = connections.channel(server.localAddress(), APP);
      Outcome o = readOnce(c, f.pieces().get(3).address(), f.pieces().get(3).rkey(), 5);
      assertNull(o.failure());
      assertPattern(o.buffer().buffer(), 0, 5, 3 * MIB, 12);
      o.buffer().release();
      o = readOnce(c, m.address(), m.rkey(), 100);
      assertNull(o.failure());
      o.buffer().release();
    }
    connections.close();
    f.close();
    m.close();
    closeAfter.clear();
    // a region goes when the server has finished its last send from it, which may end just after
    // the reader saw the bytes: wait for it, a bounded while
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (server.metrics().memory().registeredBytes() != serverBytes
        && System.nanoTime() - deadline < 0) {
      Thread.sleep(10);
    }
    assertEquals(serverBytes, server.metrics().memory().registeredBytes());
    assertEquals(serverRegions, server.metrics().memory().registeredRegions());
    pool.close();
    assertEquals(0, client.metrics().memory().registeredBytes());
    assertEquals(0, client.metrics().memory().registeredRegions());
    pool = null;
    client.close();
    server.close();
    client = null;
    server = null;
    int fds = FileDescriptors.awaitAtMost(fdsBefore, 5000);
    assertTrue(fds <= fdsBefore, "file descriptors: " + fdsBefore + " before, " + fds + " after");
  }
}
