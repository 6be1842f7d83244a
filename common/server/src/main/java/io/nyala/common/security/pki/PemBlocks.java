package io.nyala.common.security.pki;

import io.nyala.common.NyalaException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Splits PEM text into the DER bytes of its blocks of one type. Text outside the blocks (such as
 * the "Bag Attributes" lines some tools write) is ignored; a block that begins but does not end,
 * a block of another type, or a body that is not base64 is an error naming the source and line.
 */
final class PemBlocks {
  private static final String BEGIN = "-----BEGIN ";
  private static final String END = "-----END ";
  private static final String DASHES = "-----";

  private PemBlocks() {}

  static List<byte[]> parse(String pem, String type, String source) {
    if (pem == null || pem.isBlank()) {
      throw NyalaException.invalidArgument("%s: empty, expected a PEM %s", source, type);
    }
    String[] lines = pem.split("\r?\n", -1);
    List<byte[]> out = new ArrayList<>();
    int i = 0;
    while (i < lines.length) {
      String line = lines[i].strip();
      if (!line.startsWith(BEGIN)) {
        i++;
        continue;
      }
      String found = label(line, BEGIN, source, i);
      if (!found.equals(type)) {
        throw NyalaException.invalidArgument("%s, line %d: a PEM %s where a %s was expected",
            source, i + 1, found, type);
      }
      int begin = i;
      StringBuilder body = new StringBuilder();
      i++;
      while (i < lines.length && !lines[i].strip().startsWith(END)) {
        body.append(lines[i].strip());
        i++;
      }
      if (i == lines.length) {
        throw NyalaException.invalidArgument("%s: truncated PEM %s: the block begun on line %d "
            + "has no '%s%s%s' line", source, type, begin + 1, END, type, DASHES);
      }
      String endLabel = label(lines[i].strip(), END, source, i);
      if (!endLabel.equals(type)) {
        throw NyalaException.invalidArgument("%s, line %d: PEM %s block ends as %s", source,
            i + 1, type, endLabel);
      }
      out.add(decode(body.toString(), type, source, begin));
      i++;
    }
    if (out.isEmpty()) {
      throw NyalaException.invalidArgument("%s: no '%s%s%s' line: not a PEM %s", source, BEGIN,
          type, DASHES, type);
    }
    return out;
  }

  private static String label(String line, String prefix, String source, int index) {
    if (!line.endsWith(DASHES) || line.length() < prefix.length() + DASHES.length()) {
      throw NyalaException.invalidArgument("%s, line %d: malformed PEM boundary '%s'", source,
          index + 1, line);
    }
    return line.substring(prefix.length(), line.length() - DASHES.length());
  }

  private static byte[] decode(String body, String type, String source, int begin) {
    if (body.isEmpty()) {
      throw NyalaException.invalidArgument("%s: PEM %s begun on line %d is empty", source, type,
          begin + 1);
    }
    try {
      return Base64.getDecoder().decode(body);
    } catch (IllegalArgumentException e) {
      throw NyalaException.invalidArgument("%s: PEM %s begun on line %d is not base64: %s",
          source, type, begin + 1, e.getMessage());
    }
  }
}
