/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * JSON of the runner's records, with the Jackson that every Spark distribution ships (so the
 * runner's jar carries none). One object per line for records, indented for documents.
 */
public final class Json {
  private static final ObjectMapper MAPPER =
      new ObjectMapper()
          .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
          .configure(SerializationFeature.FAIL_ON_EMPTY_BEANS, false);

  private Json() {}

  /** One line of JSON. */
  public static String line(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Indented JSON. */
  public static String pretty(Object value) {
    try {
      return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(value) + "\n";
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static <T> T read(String json, Class<T> type) {
    try {
      return MAPPER.readValue(json, type);
    } catch (IOException e) {
      throw new UncheckedIOException("bad JSON for " + type.getSimpleName() + ": " + json, e);
    }
  }

  /** One object per non-blank line. */
  public static <T> List<T> readLines(String text, Class<T> type) {
    List<T> out = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (!line.isBlank()) {
        out.add(read(line, type));
      }
    }
    return out;
  }

  /** One object per line. */
  public static String lines(List<?> values) {
    StringBuilder b = new StringBuilder();
    for (Object v : values) {
      b.append(line(v)).append('\n');
    }
    return b.toString();
  }
}
