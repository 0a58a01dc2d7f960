"""Configuration: INI file, environment overrides, and clear failures on bad values."""
import pytest

from chalicelib.settings import SettingsError, load_settings


def test_defaults():
    s = load_settings({})
    assert s.app_url == "http://127.0.0.1:8000/"
    assert s.api.DEFAULT_PAGING_NUM == 30 and s.api.MAX_RESPONSE_ITEMS == 50
    assert s.signing.FORMAT == "openpgp"
    assert s.migrations.ALLOW_LOCALNETWORKS is False


def test_ini_file_and_env_overrides(tmp_path):
    ini = tmp_path / "app.ini"
    ini.write_text("[server]\nROOT_URL = https://git.example.com\n"
                   "[Repository.Signing]\nformat = ssh\nSIGNING_KEY = /k.pub\n"
                   "[aws]\nTABLE = from-ini\n")
    s = load_settings({"NIMBUS_CONFIG": str(ini), "NIMBUS__AWS__TABLE": "from-env",
                       "NIMBUS__api__MAX_RESPONSE_ITEMS": "20"})
    assert s.app_url == "https://git.example.com/"
    assert s.signing.FORMAT == "ssh" and s.signing.SIGNING_KEY == "/k.pub"
    assert s.aws.TABLE == "from-env"
    assert s.api.MAX_RESPONSE_ITEMS == 20


def test_escaped_section_names():
    s = load_settings({"NIMBUS__REPOSITORY_0X2E_SIGNING__FORMAT": "ssh",
                       "NIMBUS__WEBHOOK__ALLOWED_HOST_LIST": "loopback"})
    assert s.signing.FORMAT == "ssh"
    assert s.webhook.ALLOWED_HOST_LIST == "loopback"


@pytest.mark.parametrize("env, fragment", [
    ({"NIMBUS__SERVER__ROOT_URL": "ftp://x"}, "[server] ROOT_URL"),
    ({"NIMBUS__MIGRATIONS__ALLOW_LOCALNETWORKS": "maybe"}, "[migrations] ALLOW_LOCALNETWORKS"),
    ({"NIMBUS__API__MAX_RESPONSE_ITEMS": "lots"}, "[api] MAX_RESPONSE_ITEMS"),
    ({"NIMBUS__REPOSITORY_0X2E_SIGNING__FORMAT": "x509"}, "[repository.signing] FORMAT"),
    ({"NIMBUS__NOSEPARATOR": "1"}, "NIMBUS__<SECTION>__<KEY>"),
    ({"NIMBUS_CONFIG": "/does/not/exist.ini"}, "cannot read"),
    ({"NIMBUS__API__STATUS_ROUTES": "gitea"}, "[api] STATUS_ROUTES"),
    ({"NIMBUS__REPOSITORY__DELETED_RETENTION_DAYS": "-1"}, "[repository] DELETED_RETENTION_DAYS"),
    ({"NIMBUS__AUDIT__RETENTION_DAYS": "0"}, "[audit] RETENTION_DAYS"),
    ({"NIMBUS__EVENTS__EVENTBRIDGE_BUS": "arn:aws:events:x"}, "[events] EVENTBRIDGE_BUS"),
])
def test_bad_values_fail_clearly(env, fragment):
    with pytest.raises(SettingsError) as err:
        load_settings(env)
    assert fragment in str(err.value)


def test_sign_up_is_closed_by_default_and_mail_confirmation_is_refused():
    """Nimbus sends no mail: a configuration asking sign-ups to confirm their address
    would make accounts nobody could ever activate, so it does not load."""
    s = load_settings({})
    assert s.service.DISABLE_REGISTRATION is True and s.service.REGISTER_EMAIL_CONFIRM is False
    assert load_settings({"NIMBUS__SERVICE__DISABLE_REGISTRATION": "false"}) \
        .service.DISABLE_REGISTRATION is False
    for env in ({"NIMBUS__SERVICE__REGISTER_EMAIL_CONFIRM": "true"},
                {"NIMBUS__SERVICE__REGISTER_EMAIL_CONFIRM": "true",
                 "NIMBUS__SERVICE__DISABLE_REGISTRATION": "false"}):
        with pytest.raises(SettingsError, match=r"\[service\] REGISTER_EMAIL_CONFIRM: "
                                                "Nimbus sends no mail"):
            load_settings(env)
    with pytest.raises(SettingsError, match=r"\[ratelimit\] .*SIGN_UPS_PER_HOUR"):
        load_settings({"NIMBUS__RATELIMIT__SIGN_UPS_PER_HOUR": "0"})


def test_readme_documents_what_a_first_user_trips_on():
    """The README says how to allow a local webhook receiver (every value
    ``ALLOWED_HOST_LIST`` takes, with an example), that ``make test`` may install
    Chromium with apt as root, and the ``[api] STATUS_ROUTES`` switch."""
    import pathlib
    import re

    readme = (pathlib.Path(__file__).parent.parent / "README.md").read_text()
    section = readme[readme.index("### Webhooks to a receiver"):readme.index("## What works")]
    for value in ("external", "loopback", "private", "*"):
        assert f"| `{value}` |" in section, value
    assert "NIMBUS__WEBHOOK__ALLOWED_HOST_LIST=loopback" in section
    assert re.search(r"`make test`[^.]*apt-get install[^.]*root", readme, re.S)
    assert "`STATUS_ROUTES` (`seed`" in readme and "`forgejo`" in readme
