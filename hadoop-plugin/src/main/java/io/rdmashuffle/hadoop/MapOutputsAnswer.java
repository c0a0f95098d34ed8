package io.rdmashuffle.hadoop;

import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.memory.RegisteredFileDescriptor;
import io.rdmashuffle.transport.PeerAddress;
import java.util.List;

/**
 * What a NodeManager's rdma-shuffle service answers a reduce task that asked for some map
 * outputs: where its READ responder listens, on which transport, and for each map the partition's
 * segment in the map's {@code file.out} (from {@code file.out.index}) with the registered file's
 * descriptor. Its bytes are {@link MapOutputsAnswerLayout}'s.
 *
 * @param reduce the partition the segments are of
 */
public record MapOutputsAnswer(
    TransportKind transport, int reduce, PeerAddress responder, List<Entry> entries) {

  public MapOutputsAnswer {
    if (transport == TransportKind.AUTO) {
      throw new IllegalArgumentException("transport=auto: an answer names the transport that runs");
    }
    entries = List.copyOf(entries);
  }

  /** Whether a map output can be READ, and if not, what the reducer should do. */
  public enum Status {
    /** The segment can be READ; offsets and descriptor are set. */
    OK(0),
    /** The node has no such map output (never ran here, lost, or cleaned up). */
    NOT_FOUND(1),
    /** Not a map of the authenticated job, or its files lie outside the job's output dirs. */
    REFUSED(2),
    /** The node could not read the output's index or data (an I/O error there). */
    FAILED(3),
    /** The output exists but can't be registered now (too large for the bound): use HTTP. */
    UNAVAILABLE(4);

    private final int code;

    Status(int code) {
      this.code = code;
    }

    public int code() {
      return code;
    }

    public static Status of(int code) {
      for (Status s : values()) {
        if (s.code == code) {
          return s;
        }
      }
      throw new IllegalArgumentException("status=" + code + ": unknown");
    }
  }

  /**
   * One map's answer. For {@link Status#OK} the partition's segment is {@code [startOffset,
   * startOffset + partLength)} of the registered {@code file}: an IFile segment with its
   * checksum, {@code rawLength} bytes once decompressed, as the merge expects. Otherwise the
   * numbers are 0, {@code file} is null and {@code message} says why.
   */
  public record Entry(
      String mapId,
      Status status,
      long startOffset,
      long rawLength,
      long partLength,
      RegisteredFileDescriptor file,
      String message) {

    public Entry {
      if (mapId == null || mapId.isEmpty()) {
        throw new IllegalArgumentException("map id must not be empty");
      }
      message = message == null ? "" : message;
      if (status == Status.OK) {
        if (file == null) {
          throw new IllegalArgumentException("map " + mapId + ": status OK needs a descriptor");
        }
        MapOutputsAnswerLayout.validateSegment(mapId, startOffset, rawLength, partLength,
            file.fileLength());
      } else if (file != null || startOffset != 0 || rawLength != 0 || partLength != 0) {
        throw new IllegalArgumentException(
            "map " + mapId + ": status=" + status + " carries no segment");
      }
    }

    public static Entry ok(
        String mapId, long start, long raw, long part, RegisteredFileDescriptor file) {
      return new Entry(mapId, Status.OK, start, raw, part, file, "");
    }

    public static Entry failed(String mapId, Status status, String message) {
      return new Entry(mapId, status, 0, 0, 0, null, message);
    }
  }
}
