"""A repository's wiki: a git repository of its own beside the repository's
(``{repo}.wiki.git``), its pages through the API and the web, and the smart HTTP that
clones and pushes it.

Operations (``routes.py``): repoGetWikiPages, repoGetWikiPage, repoGetWikiPageRevisions,
repoCreateWikiPage, repoEditWikiPage, repoDeleteWikiPage.
Operations (``transport_routes.py``): gitWikiInfoRefs, gitWikiUploadPack,
gitWikiReceivePack.

| module | what it holds |
|---|---|
| ``gitrepo`` | Where a repository's wiki lives in git, and reading it. |
| ``names`` | Wiki page names as Forgejo spells them (fj:services/wiki/wiki_path.go): a page has a title ("Home Page"), … |
| ``options`` | The request body of the wiki API, declared once: the edge checks it (``ApiRequest.option``) and … |
| ``records`` | WikiPage, WikiPageMetaData, WikiCommit and WikiCommitList records (fj:services/convert/wiki.go, … |
| ``routes`` | The wiki API (Forgejo's ``repository`` tag, routers/api/v1/repo/wiki.go): list pages, read one, its … |
| ``service`` | A repository's wiki (Forgejo's services/wiki and routers/api/v1/repo/wiki.go): read, list, create, edit … |
| ``store`` | The wiki's refs and the repository's ``has_wiki_contents``, written together. |
| ``transport_routes`` | Git smart HTTP for a repository's wiki at ``/{owner}/{repo}.wiki.git/…`` (the Repository record's … |

Registered by ``chalicelib/areas.py``; the pages are ``chalicelib/web/wiki_pages.py``.

For migrations: ``open_wiki_git(repo)`` is the wiki's dulwich repository (fetch a
source wiki's objects into it), then ``set_wiki_refs(repo, refs, actor)`` makes its
refs equal ``refs`` ({ref name: sha}) by compare-and-swap, points HEAD at the wiki's
branch and marks the repository's ``has_wiki_contents``.  ``delete_wiki(repo_id)``
removes a deleted repository's wiki (the repository-cleanup consumer).
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
__all__, __getattr__, __dir__ = face(__name__, {
    "open_wiki_git":      "gitrepo",
    "wiki_branch_of":     "gitrepo.branch_of",
    "compact_wiki":       "gitrepo",
    "delete_wiki":        "store.delete_wiki_of",
    "set_wiki_refs":      "service",
    "WikiPage":           "service.Page",
    "readable_wiki":      "service.readable",
    "writable_wiki":      "service.writable",
    "get_wiki_page":      "service.get_page",
    "wiki_page_names":    "service.page_names",
    "search_wiki_titles": "service.search_titles",
    "wiki_revisions":     "service.revisions",
    "create_wiki_page":   "service.create_page",
    "edit_wiki_page":     "service.edit_page",
    "delete_wiki_page":   "service.delete_page",
    "PageName":           "names",
    "WIKI_HOME":          "names.HOME",
    "page_from_title":    "names.from_title",
    "page_from_request":  "names.from_request",
    "wiki_page_url":      "records.page_html_url",
    "wiki_commit_record": "records.wiki_commit",
})
