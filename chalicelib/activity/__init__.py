"""Activity: Forgejo's activity feeds (a user's, an organization's, a team's, a
repository's) and a user's contribution heatmap, written from the domain events.

Registered by ``chalicelib/areas.py``; ``jobs/consumers.py`` runs ``on_event`` for the
repository, push, issue, comment, release, star and watch events.  It takes
repositories, access and accounts through the faces of ``repos``, ``accounts`` and
``orgs``, and a comment's record through ``issues``.

Operations (``routes.py``): userListActivityFeeds, orgListActivityFeeds,
orgListTeamActivityFeeds, repoListActivityFeeds, userGetHeatmapData.

| module | what it holds |
|---|---|
| ``consumers`` | What goes in the feeds: the consumer of the domain events that writes activities. |
| ``models`` | The activity domain's items in the table: its models (and key layouts). |
| ``records`` | Activities -> Forgejo's Activity and UserHeatmapData records, field for field (Forgejo's … |
| ``routes`` | Activity feeds and the heatmap (Forgejo's ``user``, ``organization`` and ``repository`` tags): a user's, … |
| ``service`` | Activity feeds and the heatmap as the API reads them (Forgejo's ``GetFeeds`` and … |
| ``states`` | The activity domain's words and key layouts, without storage: Forgejo's op types, the 15-minute buckets … |
| ``store`` | Feed copies and heatmap days in the table (the layout is ``models.py``'s). |
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
__all__, __getattr__, __dir__ = face(__name__, {
    "EVENT_TYPES":     "consumers",
    "on_event":        "consumers",
    "wants_event":     "consumers",
    # The dashboard (chalicelib/web) shows the signed-in user's own feed.
    "FeedQuery":       "service",
    "feed_page":       "service",
    # The dashboard reads the feed's copies, then decides them with its other sections'
    # reads in one batch.
    "feed_copies":     "store.feed",
    "visible_activities": "service.visible",
    "activity_record": "records.activity",
})
