# Issue 15 part 6: nobody is seated without consent.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0007_game_finished_at_index'),
    ]

    operations = [
        migrations.AddField(
            model_name='game',
            name='organised',
            field=models.BooleanField(default=False),
        ),
        migrations.AlterField(
            model_name='game',
            name='status',
            field=models.CharField(choices=[('open', 'waiting for players'), ('running', 'running'), ('finished', 'finished'), ('cancelled', 'cancelled: an invitation was declined')], db_index=True, default='open', max_length=10),
        ),
        migrations.AddField(
            model_name='seat',
            name='declined_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
