def test_version(api):
    r = api.get("/version")
    assert r.status == 200
    assert r.json["version"].startswith("1.22.0+nimbus-")
