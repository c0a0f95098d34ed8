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
}
