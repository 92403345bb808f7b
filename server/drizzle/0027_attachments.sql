-- Attachments (docs/attachments.md): the metadata of files on records; their bytes live in the attachments store.
CREATE TABLE `attachments` (
	`id` bigint unsigned AUTO_INCREMENT NOT NULL,
	`company_id` bigint unsigned NOT NULL,
	`resource` varchar(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NOT NULL,
	`record_id` bigint unsigned NOT NULL,
	`filename` varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NOT NULL,
	`content_type` varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NOT NULL,
	`size` bigint unsigned NOT NULL,
	`sha256` char(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NOT NULL,
	`object_key` varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NOT NULL,
	`created_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	CONSTRAINT `attachments_company_id_id_pk` PRIMARY KEY(`company_id`,`id`),
	CONSTRAINT `attachments_id` UNIQUE(`id`)
);
--> statement-breakpoint
CREATE INDEX `attachments_record` ON `attachments` (`company_id`,`resource`,`record_id`);