"""Real TLS material for integration tests: a throwaway CA, a server and a client certificate.

Made with the ``openssl`` command-line tool, not the ``cryptography`` package: the
openssl binary comes with every Debian machine that has ca-certificates (and so with
mariadb-server), while ``cryptography`` is only an optional extra of PyMySQL and is not
guaranteed on a fresh machine. ``openssl ca`` (rather than ``openssl x509 -req``) is used
because OpenSSL 3.0, Debian 12's, can only back-date a certificate through ``-startdate``.

Keys are RSA 2048; every certificate is valid from yesterday (UTC) for 365 days, so a
clock a few hours off cannot make a fresh certificate "not yet valid".
"""

from __future__ import annotations

import datetime as _dt
import ipaddress
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

KEY_BITS = 2048
VALID_DAYS = 365


class CertsError(RuntimeError):
    """openssl failed; the message carries the command and its stderr."""


@dataclass(frozen=True)
class Certs:
    """Paths of the generated PEM files (all in ``dir``)."""

    dir: Path
    ca: Path  # ca.pem; the same bytes are also written as cacert.pem (sysbench's name)
    ca_key: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path

    def client_ssl(self, *, with_client_cert: bool = False) -> dict[str, str]:
        """The ``ssl=`` argument for ``pymysql.connect`` that verifies the server against our CA."""
        ssl = {"ca": str(self.ca)}
        if with_client_cert:
            ssl |= {"cert": str(self.client_cert), "key": str(self.client_key)}
        return ssl


_CONFIG = """\
[ ca ]
default_ca = adv_ca

[ adv_ca ]
database = {db}/index.txt
new_certs_dir = {db}
serial = {db}/serial
default_md = sha256
policy = policy_any
unique_subject = no
copy_extensions = none
email_in_dn = no

[ policy_any ]
commonName = supplied

[ req ]
distinguished_name = req_dn
prompt = no

[ req_dn ]
CN = placeholder

[ v3_ca ]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always

[ v3_server ]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = {san}
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid, issuer

[ v3_client ]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = clientAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid, issuer
"""


def make_certs(
    dir: str | Path,
    *,
    cn: str = "127.0.0.1",
    san: Sequence[str] = ("127.0.0.1", "localhost"),
) -> Certs:
    """Create a CA, a server certificate for ``cn``/``san`` and a client certificate in ``dir``.

    ``san`` entries that parse as IP addresses become ``IP:`` names, the rest ``DNS:``
    names. Raises CertsError if openssl is missing or fails.
    """
    if shutil.which("openssl") is None:
        raise CertsError("openssl not found on PATH; install it with: apt-get install openssl")
    out = Path(dir)
    out.mkdir(parents=True, exist_ok=True)
    db = out / "ca-db"
    db.mkdir(exist_ok=True)
    (db / "index.txt").write_text("")
    (db / "serial").write_text("1000\n")
    config = out / "openssl.cnf"
    config.write_text(_CONFIG.format(db=db, san=_san_value(san)))

    start = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0) - _dt.timedelta(days=1)
    dates = ["-startdate", _asn1_time(start), "-enddate", _asn1_time(start + _dt.timedelta(days=VALID_DAYS))]

    certs = Certs(
        dir=out,
        ca=out / "ca.pem",
        ca_key=out / "ca-key.pem",
        server_cert=out / "server-cert.pem",
        server_key=out / "server-key.pem",
        client_cert=out / "client-cert.pem",
        client_key=out / "client-key.pem",
    )
    ca_csr = _new_key_and_csr(config, certs.ca_key, "advisor test CA")
    _sign(config, ca_csr, certs.ca, "v3_ca", dates, ["-selfsign", "-keyfile", str(certs.ca_key)])
    shutil.copyfile(certs.ca, out / "cacert.pem")

    issuer = ["-cert", str(certs.ca), "-keyfile", str(certs.ca_key)]
    server_csr = _new_key_and_csr(config, certs.server_key, cn)
    _sign(config, server_csr, certs.server_cert, "v3_server", dates, issuer)
    client_csr = _new_key_and_csr(config, certs.client_key, "advisor-test-client")
    _sign(config, client_csr, certs.client_cert, "v3_client", dates, issuer)
    for key in (certs.ca_key, certs.server_key, certs.client_key):
        key.chmod(0o600)
    return certs


def _san_value(names: Sequence[str]) -> str:
    entries = []
    for name in names:
        try:
            ipaddress.ip_address(name)
        except ValueError:
            entries.append(f"DNS:{name}")
        else:
            entries.append(f"IP:{name}")
    if not entries:
        raise ValueError("san must name at least one host or address")
    return ", ".join(entries)


def _asn1_time(moment: _dt.datetime) -> str:
    return moment.strftime("%Y%m%d%H%M%SZ")


def _new_key_and_csr(config: Path, key: Path, cn: str) -> Path:
    csr = key.with_name(key.name.removesuffix("-key.pem") + ".csr")
    _openssl(
        "req",
        "-config",
        str(config),
        "-new",
        "-newkey",
        f"rsa:{KEY_BITS}",
        "-nodes",
        "-keyout",
        str(key),
        "-out",
        str(csr),
        "-subj",
        f"/CN={cn}",
    )
    return csr


def _sign(config: Path, csr: Path, cert: Path, extensions: str, dates: list[str], issuer: list[str]) -> None:
    _openssl(
        "ca",
        "-batch",
        "-notext",
        "-config",
        str(config),
        "-in",
        str(csr),
        "-out",
        str(cert),
        "-extensions",
        extensions,
        *dates,
        *issuer,
    )


def _openssl(*args: str) -> None:
    proc = subprocess.run(["openssl", *args], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise CertsError(f"openssl {' '.join(args[:1])} failed ({proc.returncode}): {proc.stderr.strip()}")
