"""Review 84 #7: a server that echoes part of the API key (its first 30 of 33 characters) had that part shown in
the error; every run of 10 or more of the key's characters in a row is now masked, wherever the key is masked."""

from __future__ import annotations

from toolwire._secrets import MASK, mask_secret, scrub_exception

TOKEN = "eyJhbGciOiJSUzI1NiJ9.TOKEN-LEAKME"


def test_part_of_a_key_is_masked_as_the_whole_key_is() -> None:
    assert mask_secret(f"token rejected: {TOKEN}", TOKEN) == f"token rejected: {MASK}"
    assert mask_secret(f"key {TOKEN[:30]}... not found", TOKEN) == f"key {MASK}... not found"
    assert mask_secret(f"ends in {TOKEN[-12:]}, expired", TOKEN) == f"ends in {MASK}, expired"
    assert mask_secret(f"short {TOKEN[:9]} kept", TOKEN) == f"short {TOKEN[:9]} kept"  # (9: not a part)
    assert mask_secret("nothing here", TOKEN) == "nothing here" and mask_secret("x", "") == "x"


def test_an_exception_echoing_part_of_a_key_is_scrubbed() -> None:
    try:
        try:
            raise ValueError(f"invalid key {TOKEN[:20]}")
        except ValueError as inner:
            raise RuntimeError("request failed") from inner
    except RuntimeError as exc:
        assert scrub_exception(exc, TOKEN)
        assert TOKEN[:20] not in str(exc.__cause__) and MASK in str(exc.__cause__)
