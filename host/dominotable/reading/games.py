from dominotable.reading import broadway, castle_rock, doubles_boneyard, up_down_stop  # noqa: F401
