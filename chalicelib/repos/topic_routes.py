"""Repository topics (Forgejo's ``repository`` tag): a repository's topics, read by its
readers and changed by its admins (signed in), and the search across every topic.

The guards follow Forgejo's router: ``current_repo`` answers 404 to those who cannot
see the repository, then writing needs a signed-in repository admin (403).  Invalid
names answer 422 in Forgejo's own shape (``invalidTopics`` and ``message``, no
``url``), which ``topics.InvalidTopics`` carries.
"""
from __future__ import annotations

from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route
from chalicelib.repos import records, topics
from chalicelib.repos.options import RepoTopicOptions
from chalicelib.repos.request import IN_REPO, PAGE, REPO, current_repo

SIGNED_IN_REPO = dict(IN_REPO, signed_in=True)
WRITE_ANSWERS = {204: "empty", 403: "forbidden", 404: "notFound", 422: "APIInvalidTopicsError"}


def _refused(err: topics.InvalidTopics) -> ApiResponse:
    return ApiResponse.json(err.body(), status=422)


@route("GET", "/repos/{owner}/{repo}/topics", "repoListTopics",
       summary="Get list of topics that a repository has", query=PAGE,
       responses={200: "TopicName", 404: "notFound"}, **IN_REPO)
def list_topics(req: ApiRequest) -> ApiResponse:
    names = topics.list_topics(current_repo(req))
    page = paging.page_of(req)
    return paging.set_headers(ApiResponse.json({"topics": page.slice(names)}), req, page,
                              len(names))


@route("PUT", "/repos/{owner}/{repo}/topics", "repoUpdateTopics",
       summary="Replace list of topics for a repository", body="RepoTopicOptions",
       responses=WRITE_ANSWERS, **SIGNED_IN_REPO)
def update_topics(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    option = req.option(RepoTopicOptions)
    try:
        topics.replace_topics(view, option.topics if isinstance(option.topics, list) else None)
    except topics.InvalidTopics as err:
        return _refused(err)
    return ApiResponse.empty()


@route("PUT", "/repos/{owner}/{repo}/topics/{topic}", "repoAddTopic",
       summary="Add a topic to a repository", responses=WRITE_ANSWERS, **SIGNED_IN_REPO)
def add_topic(req: ApiRequest) -> ApiResponse:
    try:
        topics.add_topic(current_repo(req), req.params["topic"])
    except topics.InvalidTopics as err:
        return _refused(err)
    return ApiResponse.empty()


@route("DELETE", "/repos/{owner}/{repo}/topics/{topic}", "repoDeleteTopic",
       summary="Delete a topic from a repository", responses=WRITE_ANSWERS, **SIGNED_IN_REPO)
def delete_topic(req: ApiRequest) -> ApiResponse:
    try:
        topics.delete_topic(current_repo(req), req.params["topic"])
    except topics.InvalidTopics as err:
        return _refused(err)
    return ApiResponse.empty()


@route("GET", "/topics/search", "topicSearch", summary="Search topics via keyword",
       query=(Param("q", "string", "keyword to search for"), *PAGE),
       responses={200: "TopicSearchResults", 403: "forbidden", 404: "notFound"}, **REPO)
def search_topics(req: ApiRequest) -> ApiResponse:
    page = paging.page_of(req)
    found, total = topics.search(req.arg("q", "") or "", page.offset, page.limit)
    body = {"topics": [records.topic_response(topic) for topic in found]}
    return paging.set_headers(ApiResponse.json(body), req, page, total)
