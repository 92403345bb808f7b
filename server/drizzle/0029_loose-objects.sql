-- Keys of objects no attachment row owns yet or any more (docs/attachments.md, "After a crash"): what
-- the sweep removes when a server died between storing an object and committing (or deleting) its row.
CREATE TABLE `loose_objects` (
	`object_key` varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NOT NULL,
	`since` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	CONSTRAINT `loose_objects_object_key` PRIMARY KEY(`object_key`)
);
--> statement-breakpoint
CREATE INDEX `loose_objects_since` ON `loose_objects` (`since`);