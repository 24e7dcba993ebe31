"""The wire codec (firmware/dominotray/wire.py), shared by the tray firmware and the host."""

import random

import pytest
from dominotray import wire
from hypothesis import given, settings
from hypothesis import strategies as st
from test_firmware import cases

cobs_reference = cases._cobs_reference  # the textbook encoder, one copy for both Pythons


def test_crc16_ccitt_false_check_value():
    assert wire.crc16(b"123456789") == 0x29B1
    assert wire.crc16_py(b"123456789") == 0x29B1
    rng = random.Random(1)
    for _ in range(50):
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(300)))
        assert wire.crc16(data) == wire.crc16_py(data)


@pytest.mark.parametrize("raw, encoded", [
    ("", "01"),
    ("00", "0101"),
    ("0000", "010101"),
    ("11220033", "0311220233"),
    ("11223344", "0511223344"),
    ("11000000", "0211010101"),
    (bytes(range(1, 255)).hex(), "ff" + bytes(range(1, 255)).hex()),
    (bytes(range(0, 255)).hex(), "01ff" + bytes(range(1, 255)).hex()),
    (bytes(range(1, 256)).hex(), "ff" + bytes(range(1, 255)).hex() + "02ff"),
    (bytes(range(2, 256)).hex() + "00", "ff" + bytes(range(2, 256)).hex() + "0101"),
    (bytes(range(3, 256)).hex() + "0001", "fe" + bytes(range(3, 256)).hex() + "0201"),
])
def test_cobs_known_vectors(raw, encoded):
    assert wire.cobs_encode(bytes.fromhex(raw)).hex() == encoded
    assert wire.cobs_decode(bytes.fromhex(encoded)).hex() == raw


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=1200) | st.lists(st.sampled_from([0, 1, 255]), max_size=700).map(bytes))
def test_cobs_round_trip_and_no_zeros(data):
    encoded = wire.cobs_encode(data)
    assert 0 not in encoded
    assert encoded == cobs_reference(data)
    assert wire.cobs_decode(encoded) == data


def sample_messages():
    passed = [True] * 194
    passed[17] = passed[193] = False
    cells = [(wire.EMPTY, b"")] * 194
    cells[3] = (wire.TAG, bytes.fromhex("04a1b2c3d4e5f6"))
    cells[4] = (wire.TAG, bytes.fromhex("04a1b2c3d4e5f7"))
    cells[17] = (wire.FAULT, b"")
    return [
        (wire.HELLO, wire.encode_hello((1, 2, 3), b"\xe6\x61\x41\x04\x03\x2b\x5c\x27", 194, passed)),
        (wire.SNAPSHOT, wire.encode_snapshot(wire.BOOT, cells)),
        (wire.CHANGES, wire.encode_changes([(3, wire.TAG, b"\x04\x00\x00\x00\x00\x00\x01"), (191, wire.EMPTY, b""),
                                            (192, wire.FAULT, b"")])),
        (wire.GET_HELLO, b""),
        (wire.GET_SNAPSHOT, b""),
        (wire.RESET_READER, wire.encode_reset_reader(300)),
        (wire.RESTART, b""),
    ]


def test_every_message_round_trips_through_frames():
    framer = wire.Framer()
    stream = b"".join(framer.frame(kind, body) for kind, body in sample_messages())
    frames = wire.Decoder().feed(stream)
    assert [(k, b) for k, _, b in frames] == sample_messages()
    assert [s for _, s, _ in frames] == list(range(7))

    hello, snap, changes, _, _, cell, _ = [wire.decode_body(k, b) for k, _, b in frames]
    assert (hello.proto, hello.fw, hello.cells) == (wire.PROTO, (1, 2, 3), 194)
    assert hello.board_id.hex() == "e6614104032b5c27"
    assert hello.failed_cells() == [17, 193]
    assert snap.reason == wire.BOOT and len(snap.cells) == 194
    assert snap.cells[3] == (wire.TAG, bytes.fromhex("04a1b2c3d4e5f6"))
    assert snap.cells[17] == (wire.FAULT, b"") and snap.cells[0] == (wire.EMPTY, b"")
    assert changes == [(3, wire.TAG, b"\x04\x00\x00\x00\x00\x00\x01"), (191, wire.EMPTY, b""), (192, wire.FAULT, b"")]
    assert cell == 300


def test_parse_mode_returns_messages_and_byte_by_byte_feeding_works():
    framer = wire.Framer()
    stream = b"".join(framer.frame(kind, body) for kind, body in sample_messages())
    decoder = wire.Decoder(parse=True)
    got = []
    for byte in stream:
        got += decoder.feed(bytes([byte]))
    assert [m for _, _, m in got] == [wire.decode_body(k, b) for k, b in sample_messages()]
    assert decoder.error_count() == 0 and decoder.frames == 7


def test_sequence_counter_wraps():
    framer = wire.Framer(seq=254)
    seqs = [s for _, s, _ in wire.Decoder().feed(b"".join(framer.frame(wire.GET_SNAPSHOT) for _ in range(3)))]
    assert seqs == [254, 255, 0]


def crc_ok_payload(body_and_header: bytes) -> bytes:
    return wire.cobs_encode(body_and_header + wire.crc16(body_and_header).to_bytes(2, "big")) + b"\x00"


@pytest.mark.parametrize("kind, bad", [
    ("cobs", b"\x05\x01\x02\x00"),                        # block runs past the end
    ("short", wire.cobs_encode(b"\x01\x00\x00") + b"\x00"),
    ("crc", wire.frame(wire.GET_HELLO, 0)[:-2] + b"\x01\x00"),
    ("long", b"\x01" * (wire.MAX_ENCODED + 10) + b"\x00"),
    ("type", crc_ok_payload(b"\x42\x00")),
    ("body", crc_ok_payload(b"\x82\x00junk")),                       # GET_SNAPSHOT has no body
    ("body", crc_ok_payload(b"\x02\x00\x00\x00\x02\x00")),          # snapshot claims 2 cells, has 1
    ("body", crc_ok_payload(b"\x02\x00\x00\x00\x01\x01\x0b" + b"\x01" * 11)),  # 11-byte UID
    ("body", crc_ok_payload(b"\x02\x00\x09\x00\x00")),              # unknown reason
    ("body", crc_ok_payload(b"\x03\x00\x01\x00\x05\x07")),          # unknown cell status
    ("body", crc_ok_payload(b"\x01\x00" + wire.encode_hello((1, 0, 0), b"id", 16, [True] * 16)[:-1])),
    ("body", crc_ok_payload(b"\x87\x00\x00\xc2\x00\x02\x00\x01\x01\x01\x01")),  # LIGHTS: 2 lit, 1 sent
    ("body", crc_ok_payload(b"\x87\x00\x00\xc2\x00\x01\x00\xc2\x01\x01\x01")),  # LIGHTS: cell 194 of 194
    ("body", crc_ok_payload(b"\x05\x00\x07\x09")),                    # LIGHTS_ACK: unknown result
])
def test_each_malformed_frame_is_counted_by_kind_and_the_next_frame_still_decodes(kind, bad):
    decoder = wire.Decoder()
    good = wire.frame(wire.GET_SNAPSHOT, 9)
    assert decoder.feed(bad + good) == [(wire.GET_SNAPSHOT, 9, b"")]
    assert decoder.errors[kind] == 1 and decoder.error_count() == 1


def test_overlong_frame_split_across_feeds_is_dropped_whole():
    decoder = wire.Decoder()
    for _ in range(5):
        assert decoder.feed(b"\x07" * 1000) == []
    assert decoder.feed(b"\x00" + wire.frame(wire.RESTART, 1)) == [(wire.RESTART, 1, b"")]
    assert decoder.errors["long"] == 1


def test_types_filter_rejects_the_other_directions_messages():
    decoder = wire.Decoder(types=wire.TO_TRAY)
    assert decoder.feed(wire.frame(wire.HELLO, 0, sample_messages()[0][1]) + wire.frame(wire.RESTART, 1)) == [
        (wire.RESTART, 1, b"")]
    assert decoder.errors["type"] == 1


def test_encoders_refuse_what_the_format_cannot_carry():
    with pytest.raises(wire.WireError, match="UID of 11 bytes"):
        wire.encode_snapshot(0, [(wire.TAG, b"\x01" * 11)])
    with pytest.raises(wire.WireError, match="256 change events"):
        wire.encode_changes([(0, wire.EMPTY, b"")] * 256)
    with pytest.raises(wire.WireError, match="exceeds 2048"):
        wire.frame(wire.SNAPSHOT, 0, b"\x01" * 2045)
    with pytest.raises(wire.WireError, match="3 entries for 4 cells"):
        wire.encode_hello((1, 0, 0), b"", 4, [True] * 3)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=300) | st.sampled_from([b"\x00", b"\x00\x00", b"\xff" * 300]), max_size=12))
def test_fuzz_decoder_never_raises_on_any_bytes(chunks):
    decoder = wire.Decoder(parse=True)
    for chunk in chunks:
        for kind, seq, msg in decoder.feed(chunk):
            assert kind in wire.NAMES and 0 <= seq <= 255
    assert all(v >= 0 for v in decoder.errors.values())


def random_message(rng: random.Random):
    kind = rng.choice(list(wire.NAMES))
    if kind == wire.SNAPSHOT:
        cells = [rng.choice([(wire.EMPTY, b""), (wire.FAULT, b""), (wire.TAG, rng.randbytes(7))])
                 for _ in range(rng.randrange(0, 200))]
        return kind, wire.encode_snapshot(rng.randrange(4), cells)
    if kind == wire.CHANGES:
        return kind, wire.encode_changes([(rng.randrange(194), wire.TAG, rng.randbytes(7)) for _ in range(rng.randrange(5))])
    if kind == wire.HELLO:
        n = rng.randrange(1, 200)
        return kind, wire.encode_hello((1, 0, 0), rng.randbytes(8), n, [rng.random() < 0.9 for _ in range(n)])
    if kind == wire.RESET_READER:
        return kind, wire.encode_reset_reader(rng.randrange(194))
    if kind == wire.BRINGUP_REPORT:
        probes = [wire.Probe(True, rng.randrange(40, 200), wire.TAG, rng.randbytes(7), rng.randrange(64))
                  for _ in range(rng.randrange(1, 64))]
        return kind, wire.encode_bringup_report(40, 63, 194, 0, probes)
    if kind == wire.LIGHTS:
        lit = sorted(rng.sample(range(194), rng.randrange(0, 20)))
        return kind, wire.encode_lights(194, [(cell, *rng.randbytes(3)) for cell in lit])
    if kind == wire.LIGHTS_ACK:
        return kind, wire.encode_lights_ack(rng.randrange(256), rng.choice([wire.TAKEN, wire.REFUSED]))
    return kind, b""


def corrupt(rng: random.Random, stream: bytes) -> bytes:
    data = bytearray(stream)
    for _ in range(rng.randrange(1, 6)):
        what = rng.randrange(4)
        at = rng.randrange(len(data))
        if what == 0:
            data[at] ^= 1 << rng.randrange(8)
        elif what == 1:
            del data[at:at + rng.randrange(1, 4)]
        elif what == 2:
            data[at:at] = rng.randbytes(rng.randrange(1, 20))
        else:
            data[at] = 0
        if not data:
            break
    return bytes(data)


# derandomize: the CRC lets a random corruption through with probability about 2**-16, so
# the run is pinned to fixed examples (verified to be representative, not picked to pass).
@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.integers(0, 2**32))
def test_fuzz_corrupted_streams_never_yield_a_frame_that_was_not_sent(seed):
    rng = random.Random(seed)
    framer = wire.Framer(seq=rng.randrange(256))
    sent = set()
    stream = b""
    for _ in range(rng.randrange(1, 6)):
        kind, body = random_message(rng)
        sent.add((kind, framer.seq, body))
        stream += framer.frame(kind, body)
    decoder = wire.Decoder()
    got = []
    data = corrupt(rng, stream) + b"\x00"  # the trailing delimiter flushes a frame cut short
    cuts = [0] + sorted(rng.randrange(len(data) + 1) for _ in range(3)) + [len(data)]
    for a, b in zip(cuts, cuts[1:]):
        got += decoder.feed(data[a:b])
    assert set(got) <= sent
    assert len(got) + decoder.error_count() >= 1 or not data.strip(b"\x00")  # (unless only delimiters are left)
