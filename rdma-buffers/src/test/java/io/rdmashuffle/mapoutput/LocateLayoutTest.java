/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.mapoutput;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.mapoutput.LocateAnswer.Located;
import io.rdmashuffle.mapoutput.LocateAnswer.Status;
import io.rdmashuffle.memory.RegionDescriptor;
import io.rdmashuffle.memory.RegisteredFileDescriptor;
import io.rdmashuffle.transport.PeerAddress;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The one wire description of where to READ: what is encoded is what is decoded. */
class LocateLayoutTest {
  static LocateRequest request() {
    return new LocateRequest("3", List.of("17", "18", "attempt_1_0001_m_000002_0"), 4, 9, true);
  }

  static LocateAnswer answer() {
    RegisteredFileDescriptor data =
        new RegisteredFileDescriptor(
            300,
            256,
            List.of(
                new RegionDescriptor(1L << 40, 256, 77), new RegionDescriptor(1L << 41, 44, 78)));
    PartitionTable spark =
        new PartitionTable(
            4,
            new long[] {0, 10, 10},
            new long[] {10, 0, 290},
            null,
            ChecksumAlgorithm.CRC32C,
            new int[] {1, 2, -3});
    PartitionTable mr =
        new PartitionTable(
            4, new long[] {5}, new long[] {200}, new long[] {800}, ChecksumAlgorithm.NONE, null);
    return new LocateAnswer(
        TransportKind.VERBS,
        new PeerAddress("node7", 4321),
        List.of(
            Located.ok("17", data, spark),
            Located.local("18", "/data/shuffle_3_18_0.data", mr),
            Located.failed("attempt_1_0001_m_000002_0", Status.UNAVAILABLE, "bound reached")));
  }

  @Test
  void requestsAndAnswersRoundTrip() {
    assertEquals(request(), LocateLayout.decodeRequest(LocateLayout.encode(request())));
    LocateAnswer back = LocateLayout.decodeAnswer(LocateLayout.encode(answer()));
    assertEquals(answer().transport(), back.transport());
    assertEquals(answer().responder(), back.responder());
    assertEquals(3, back.maps().size());
    for (int i = 0; i < 3; i++) {
      Located a = answer().maps().get(i);
      Located b = back.maps().get(i);
      assertEquals(a.map(), b.map());
      assertEquals(a.status(), b.status());
      assertEquals(a.message(), b.message());
      assertEquals(a.localPath(), b.localPath());
      assertEquals(a.partitions(), b.partitions());
      assertEquals(
          a.data() == null ? null : a.data().pieces(), b.data() == null ? null : b.data().pieces());
    }
    assertEquals(800, back.maps().get(1).partitions().rawLength(4));
  }

  @Test
  void badBytesAreRefusedNamingTheField() {
    ByteBuffer r = LocateLayout.encode(request());
    r.putShort(LocateLayout.REQUEST_COUNT_OFFSET, (short) 0);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> LocateLayout.decodeRequest(r));
    assertTrue(e.getMessage().contains("map count=0"), e.getMessage());
    ByteBuffer a = LocateLayout.encode(answer());
    ByteBuffer cut = a.slice(0, a.limit() - 3);
    e = assertThrows(IllegalArgumentException.class, () -> LocateLayout.decodeAnswer(cut));
    assertTrue(
        e.getMessage().contains("truncated") || e.getMessage().contains("exceed"), e.getMessage());
    ByteBuffer kind = LocateLayout.encode(answer());
    kind.putShort(LocateLayout.ANSWER_KIND_OFFSET, (short) 9);
    e = assertThrows(IllegalArgumentException.class, () -> LocateLayout.decodeAnswer(kind));
    assertTrue(e.getMessage().contains("transport kind=9"), e.getMessage());
  }

  @Test
  void anOkEntryCarriesEitherADescriptorOrALocalPath() {
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new Located(
                "1",
                Status.OK,
                "",
                null,
                "",
                PartitionTable.ofEnds(new long[] {1}, ChecksumAlgorithm.NONE, null)));
    assertThrows(
        IllegalArgumentException.class,
        () -> new Located("1", Status.NOT_FOUND, "", null, "/x", null));
  }

  @Test
  void anEntrysSizeIsTheBytesItIsEncodedIn() {
    LocateAnswer a = answer();
    long sum = LocateLayout.answerHeaderBytes(a.responder());
    for (Located e : a.maps()) {
      LocateAnswer one = new LocateAnswer(a.transport(), a.responder(), List.of(e));
      assertEquals(
          LocateLayout.encode(one).remaining() - LocateLayout.answerHeaderBytes(a.responder()),
          LocateLayout.entryBytes(e),
          e.map());
      sum += LocateLayout.entryBytes(e);
    }
    assertEquals(LocateLayout.encode(a).remaining(), sum);
    Located deferred = Located.failed("attempt_1_0001_m_000002_0", Status.DEFERRED, "");
    assertEquals(
        LocateLayout.failedEntryBytes(deferred.map(), 0), LocateLayout.entryBytes(deferred));
    assertTrue(
        LocateLayout.answerHeaderBytes(a.responder()) <= LocateLayout.MAX_ANSWER_HEADER_BYTES);
  }

  @Test
  void aPlannedEntryHoldsWhatAnOwnerAnswersAndTheLeastIsBelowIt() {
    Located ok = answer().maps().get(0); // checksums, a descriptor of 2 pieces
    Located local = answer().maps().get(1); // raw lengths, a path
    for (Located e : List.of(ok, local)) {
      long n = e.partitions().size();
      boolean isLocal = e.data() == null;
      assertTrue(LocateLayout.entryBytes(e) <= LocateLayout.plannedEntryBytes(e.map(), n, isLocal));
      assertTrue(LocateLayout.leastOkEntryBytes(e.map(), n) <= LocateLayout.entryBytes(e));
    }
    // per partition: 16 bytes at least, 28 with raw length and checksum
    assertEquals(
        28L * 1000,
        LocateLayout.plannedEntryBytes("m", 1001, false)
            - LocateLayout.plannedEntryBytes("m", 1, false));
    assertEquals(
        16L * 1000,
        LocateLayout.leastOkEntryBytes("m", 1001) - LocateLayout.leastOkEntryBytes("m", 1));
  }

  @Test
  void theWidestRequestsSizeDoesNotOverflow() {
    // one request may ask 1024 maps x 16M partitions: 470 GB of answer, in longs
    long one = LocateLayout.plannedEntryBytes("m", MetaFileLayout.MAX_PARTITIONS, false);
    assertTrue(one > 28L * MetaFileLayout.MAX_PARTITIONS, "one=" + one);
    assertTrue(one * LocateRequest.MAX_MAPS > Integer.MAX_VALUE);
    assertTrue(
        LocateLayout.leastOkEntryBytes("m", MetaFileLayout.MAX_PARTITIONS)
            >= 16L * MetaFileLayout.MAX_PARTITIONS);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> LocateLayout.plannedEntryBytes("m", MetaFileLayout.MAX_PARTITIONS + 1L, false));
    assertTrue(e.getMessage().contains("partitions=" + (MetaFileLayout.MAX_PARTITIONS + 1)));
    // and a request that wide is a valid request: the server answers what fits of it
    List<String> maps = new java.util.ArrayList<>();
    for (int i = 0; i < LocateRequest.MAX_MAPS; i++) {
      maps.add(Integer.toString(i));
    }
    LocateRequest wide = new LocateRequest("1", maps, 0, MetaFileLayout.MAX_PARTITIONS, false);
    assertEquals(wide, LocateLayout.decodeRequest(LocateLayout.encode(wide)));
  }

  @Test
  void aDeferredEntryRoundTrips() {
    LocateAnswer a =
        new LocateAnswer(
            TransportKind.TCP,
            new PeerAddress("n", 1),
            List.of(answer().maps().get(0), Located.failed("18", Status.DEFERRED, "")));
    LocateAnswer back = LocateLayout.decodeAnswer(LocateLayout.encode(a));
    assertEquals(Status.DEFERRED, back.maps().get(1).status());
    assertEquals(6, Status.DEFERRED.code());
  }
}
