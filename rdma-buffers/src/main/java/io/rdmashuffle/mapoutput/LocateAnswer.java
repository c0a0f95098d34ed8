/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.mapoutput;

import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.memory.RegisteredFileDescriptor;
import io.rdmashuffle.transport.PeerAddress;
import java.util.List;

/**
 * The one wire description of "where to READ", whatever the engine: a serving process's answer to a
 * {@link LocateRequest}. It names the transport and responder that serve the READs, and per map (in
 * the order asked) either the registered data file with the asked partitions' places and checksums,
 * or why not. Spark readers get it over a transport call, MapReduce reducers over the stock shuffle
 * port's HTTP; its bytes are {@link LocateLayout}'s either way.
 */
public record LocateAnswer(TransportKind transport, PeerAddress responder, List<Located> maps) {

  public LocateAnswer {
    if (transport == TransportKind.AUTO) {
      throw new IllegalArgumentException("transport=auto: an answer names the transport that runs");
    }
    maps = List.copyOf(maps);
  }

  /** Whether a map output can be READ, and if not, whose problem it is. */
  public enum Status {
    /** It can be READ: the descriptor and partitions are set. */
    OK(0),
    /** This process serves no such map output (never here, lost, cleaned up): the map's fault. */
    NOT_FOUND(1),
    /** Not a map output of the asking application, or its files lie where they may not. */
    REFUSED(2),
    /** Its files could not be read here (I/O error, truncated, damaged): the map's fault. */
    FAILED(3),
    /** It exists but can't be served now (the server's own limits or registration failed). */
    UNAVAILABLE(4),
    /**
     * It exists, but every registration the server may hold is leased to readers still READing: ask
     * again after a short wait. Nobody's fault, never a fetch failure while the reader's wait
     * budget lasts.
     */
    BUSY(5),
    /**
     * Not answered in this call: with it the answer would pass the server's {@code
     * call.maxAnswerBytes}. The server answers a prefix of the maps asked for and this for every
     * map after it: ask again for those. When the first map is deferred, its partitions alone don't
     * fit: ask for fewer. Nobody's fault, never a failure.
     */
    DEFERRED(6);

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
   * One map's answer. For {@link Status#OK}: the asked partitions, and the registered data file to
   * READ them from, or, when the reader asked for local paths, the data file's path instead (the
   * reader reads it on this host; it asks again without local paths if it can't). Otherwise {@code
   * message} says why, and the rest is null or empty.
   */
  public record Located(
      String map,
      Status status,
      String message,
      RegisteredFileDescriptor data,
      String localPath,
      PartitionTable partitions) {

    public Located {
      if (map == null || map.isEmpty()) {
        throw new IllegalArgumentException(
            "map=" + (map == null ? "null" : "''") + ": must not be empty");
      }
      message = message == null ? "" : message;
      localPath = localPath == null ? "" : localPath;
      if (status == Status.OK) {
        if (partitions == null || (data == null) == localPath.isEmpty()) {
          throw new IllegalArgumentException(
              "map "
                  + map
                  + " status=OK: needs partitions and"
                  + " either a descriptor or a local path");
        }
        if (data != null) {
          partitions.checkWithin(data.fileLength());
        }
      } else if (data != null || partitions != null || !localPath.isEmpty()) {
        throw new IllegalArgumentException(
            "map " + map + ": status=" + status + " carries no file");
      }
    }

    /** A map output to READ through the transport. */
    public static Located ok(String map, RegisteredFileDescriptor data, PartitionTable partitions) {
      return new Located(map, Status.OK, "", data, "", partitions);
    }

    /** A map output the reader reads from its file on this host. */
    public static Located local(String map, String localPath, PartitionTable partitions) {
      return new Located(map, Status.OK, "", null, localPath, partitions);
    }

    public static Located failed(String map, Status status, String message) {
      return new Located(map, status, message, null, "", null);
    }

    public boolean ok() {
      return status == Status.OK;
    }
  }
}
